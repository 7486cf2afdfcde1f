/** Services (`<application>`) off and onto the wire. */
import type { ServiceDraft } from '../drafts.ts';
import { optionalText, readGroupingRecord, requireRoot } from '../fields.ts';
import type { ServiceRecord, WithXml } from '../wire.ts';
import { removeChildren, setChild } from '../xml/xml-edit.ts';
import { childElement, childElements, element, textElement, type XmlElement } from '../xml/xml.ts';

const elementOrder = ['applicationProtocol', 'value', 'sourcePort'];

export function readService(node: XmlElement): WithXml<ServiceRecord> {
  const record = readGroupingRecord(node, 'application');
  const ports = childElement(node, 'element');
  return {
    ...record,
    protocol: ports === undefined ? null : optionalText(ports, 'applicationProtocol'),
    ports: ports === undefined ? null : optionalText(ports, 'value'),
    sourcePorts: ports === undefined ? null : optionalText(ports, 'sourcePort'),
  };
}

/** `<list><application>...</application>...</list>` */
export function readServiceList(root: XmlElement): WithXml<ServiceRecord>[] {
  return childElements(requireRoot(root, 'list'), 'application').map(readService);
}

/** Body of `POST /api/2.0/services/application/{scope}`. */
export function serviceCreateXml(draft: ServiceDraft): XmlElement {
  const optional = (name: string, value: string | null | undefined) =>
    typeof value === 'string' ? [textElement(name, value)] : [];
  return element('application', {}, [
    textElement('name', draft.name),
    ...optional('description', draft.description),
    ...(draft.inheritanceAllowed === undefined
      ? []
      : [textElement('inheritanceAllowed', String(draft.inheritanceAllowed))]),
    element('element', {}, [
      textElement('applicationProtocol', draft.protocol),
      ...optional('value', draft.ports),
      ...optional('sourcePort', draft.sourcePorts),
    ]),
  ]);
}

/**
 * Body of `PUT /api/2.0/services/application/{id}`: the whole current object
 * (objectId and revision included) with the draft's fields replaced.
 */
export function serviceUpdateXml(current: WithXml<ServiceRecord>, draft: ServiceDraft): XmlElement {
  let xml = setChild(current.xml, textElement('name', draft.name));
  if (draft.description !== undefined) {
    xml = setChild(xml, textElement('description', draft.description ?? ''));
  }
  if (draft.inheritanceAllowed !== undefined) {
    xml = setChild(xml, textElement('inheritanceAllowed', String(draft.inheritanceAllowed)));
  }
  let ports = childElement(xml, 'element') ?? element('element');
  ports = setChild(ports, textElement('applicationProtocol', draft.protocol), elementOrder);
  const portField = (node: XmlElement, name: string, value: string | null | undefined) =>
    value === undefined
      ? node
      : value === null
        ? removeChildren(node, name)
        : setChild(node, textElement(name, value), elementOrder);
  ports = portField(ports, 'value', draft.ports);
  ports = portField(ports, 'sourcePort', draft.sourcePorts);
  return setChild(xml, ports);
}
