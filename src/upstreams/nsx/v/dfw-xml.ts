/**
 * The NSX-v 6.x distributed firewall (`GET /api/4.0/firewall/globalroot-0/config`,
 * its `<section>`s and `<rule>`s) off and onto the wire. Rules are written one
 * at a time per section, so reading keeps only what the schema shows; a new
 * rule is built in the order of the manager's rule examples.
 */
import type { DfwRuleDraft } from '../drafts.ts';
import { badResponse, booleanText } from '../fields.ts';
import { generationFromEtag } from './firewall-xml.ts';
import type {
  DfwRuleRecord,
  DistributedFirewallRecord,
  FirewallLayerName,
  FirewallSectionRecord,
} from '../wire.ts';
import {
  childElement,
  childElements,
  childText,
  element,
  textElement,
  type XmlElement,
} from '../xml/xml.ts';

/** Path segment of each layer's sections. */
export const sectionPathSegment: Readonly<Record<FirewallLayerName, string>> = {
  LAYER3: 'layer3sections',
  LAYER2: 'layer2sections',
};

const sectionContainers: Readonly<Record<FirewallLayerName, string>> = {
  LAYER3: 'layer3Sections',
  LAYER2: 'layer2Sections',
};

function readDfwRule(node: XmlElement): DfwRuleRecord {
  const action = childText(node, 'action')?.trim();
  if (action === undefined || action === '') throw badResponse('<rule> without <action>');
  const id = node.attributes['id']?.trim();
  const flag = (name: string): boolean => {
    const value = node.attributes[name];
    return value === undefined || value.trim() === '' ? false : booleanText(value, name);
  };
  return {
    id: id === undefined || id === '' ? null : id,
    name: childText(node, 'name') ?? null,
    action,
    disabled: flag('disabled'),
    logged: flag('logged'),
    notes: childText(node, 'notes') ?? null,
    sources: childElement(node, 'sources') ?? null,
    destinations: childElement(node, 'destinations') ?? null,
    services: childElement(node, 'services') ?? null,
    appliedToList: childElement(node, 'appliedToList') ?? null,
  };
}

function layerOfSection(node: XmlElement, fallback: FirewallLayerName): FirewallLayerName {
  const type = node.attributes['type']?.trim().toUpperCase();
  return type === 'LAYER3' || type === 'LAYER2' ? type : fallback;
}

/**
 * One `<section>`. Its generation number is the ETag of a single-section read
 * (quoted from 6.4.5 on) or, inside the whole configuration, its own attribute.
 */
export function readSection(
  node: XmlElement,
  layer: FirewallLayerName,
  etag?: string,
): FirewallSectionRecord {
  if (node.name !== 'section') throw badResponse(`<section> expected, got <${node.name}>`);
  const id = node.attributes['id']?.trim() ?? '';
  if (id === '') throw badResponse('<section> without an id');
  const generation =
    etag === undefined
      ? (node.attributes['generationNumber']?.trim() ?? '')
      : generationFromEtag(etag);
  if (generation === '') throw badResponse(`section ${id} without a generation number`);
  return {
    id,
    name: node.attributes['name'] ?? '',
    layer: layerOfSection(node, layer),
    generationNumber: generation,
    rules: childElements(node, 'rule').map(readDfwRule),
  };
}

export function readDistributedFirewall(
  root: XmlElement,
  etag: string | undefined,
): DistributedFirewallRecord {
  if (root.name !== 'firewallConfiguration') {
    throw badResponse(`<firewallConfiguration> expected, got <${root.name}>`);
  }
  const layers: FirewallLayerName[] = ['LAYER3', 'LAYER2'];
  const sections = layers.flatMap((layer) => {
    const container = childElement(root, sectionContainers[layer]);
    return container === undefined
      ? []
      : childElements(container, 'section').map((node) => readSection(node, layer));
  });
  const generation =
    etag === undefined ? (root.attributes['timestamp']?.trim() ?? '') : generationFromEtag(etag);
  if (generation === '') throw badResponse('a firewall configuration without ETag or timestamp');
  return { generationNumber: generation, sections };
}

/** Body of `POST …/{layer}sections/{sectionId}/rules`, in the order of the manager's example. */
export function dfwRuleXml(draft: DfwRuleDraft, sectionId: string): XmlElement {
  const children: XmlElement[] = [];
  if (draft.name !== undefined) children.push(textElement('name', draft.name));
  children.push(textElement('action', draft.action));
  if (draft.notes !== undefined) children.push(textElement('notes', draft.notes));
  if (draft.appliedToList !== undefined) children.push(draft.appliedToList.xml);
  children.push(textElement('sectionId', sectionId));
  for (const part of [draft.sources, draft.destinations, draft.services]) {
    if (part !== undefined) children.push(part.xml);
  }
  return element(
    'rule',
    { disabled: String(draft.disabled), logged: String(draft.logged) },
    children,
  );
}
