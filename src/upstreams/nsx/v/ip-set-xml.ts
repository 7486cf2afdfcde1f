/** IP sets (`<ipset>`) off and onto the wire. */
import type { IpSetDraft } from '../drafts.ts';
import { optionalText, readGroupingRecord, requireRoot } from '../fields.ts';
import { setChild } from '../xml/xml-edit.ts';
import type { IpSetRecord, WithXml } from '../wire.ts';
import { childElements, element, textElement, type XmlElement } from '../xml/xml.ts';

export function readIpSet(node: XmlElement): WithXml<IpSetRecord> {
  return { ...readGroupingRecord(node, 'ipset'), value: optionalText(node, 'value') ?? '' };
}

/** `<list><ipset>...</ipset>...</list>`; a single item is still a list. */
export function readIpSetList(root: XmlElement): WithXml<IpSetRecord>[] {
  return childElements(requireRoot(root, 'list'), 'ipset').map(readIpSet);
}

/** Body of `POST /api/2.0/services/ipset/{scope}`. */
export function ipSetCreateXml(draft: IpSetDraft): XmlElement {
  return element('ipset', {}, [
    textElement('name', draft.name),
    ...(typeof draft.description === 'string'
      ? [textElement('description', draft.description)]
      : []),
    textElement('value', draft.addresses.join(',')),
    ...(draft.inheritanceAllowed === undefined
      ? []
      : [textElement('inheritanceAllowed', String(draft.inheritanceAllowed))]),
  ]);
}

/**
 * Body of `PUT /api/2.0/services/ipset/{id}`: the current object, revision
 * included, with the draft's fields replaced and everything else kept.
 */
export function ipSetUpdateXml(current: WithXml<IpSetRecord>, draft: IpSetDraft): XmlElement {
  let xml = setChild(current.xml, textElement('name', draft.name));
  if (draft.description !== undefined) {
    xml = setChild(xml, textElement('description', draft.description ?? ''));
  }
  xml = setChild(xml, textElement('value', draft.addresses.join(',')));
  if (draft.inheritanceAllowed !== undefined) {
    xml = setChild(xml, textElement('inheritanceAllowed', String(draft.inheritanceAllowed)));
  }
  return xml;
}
