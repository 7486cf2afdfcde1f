/** Load-balancer virtual servers (`<virtualServer>`) off and onto the wire. */
import type { VirtualServerDraft } from '../drafts.ts';
import {
  badResponse,
  optionalBoolean,
  optionalInteger,
  optionalText,
  requireRoot,
  requiredText,
} from '../fields.ts';
import type { VirtualServerRecord } from '../wire.ts';
import { setChild } from '../xml/xml-edit.ts';
import { childElements, element, textElement, type XmlElement } from '../xml/xml.ts';

/** The XSD's order of a virtual server's children (virtualServersCreate.xsd). */
const fieldOrder = [
  'virtualServerId',
  'name',
  'description',
  'enabled',
  'ipAddress',
  'protocol',
  'port',
  'connectionLimit',
  'connectionRateLimit',
  'applicationProfileId',
  'defaultPoolId',
  'enableServiceInsertion',
  'accelerationEnabled',
] as const;

function draftFields(draft: VirtualServerDraft): Array<[string, string]> {
  const fields: Array<[string, string | number | boolean | null]> = [
    ['name', draft.name],
    ['description', draft.description],
    ['enabled', draft.enabled],
    ['ipAddress', draft.ipAddress],
    ['protocol', draft.protocol],
    ['port', draft.port],
    ['connectionLimit', draft.connectionLimit],
    ['connectionRateLimit', draft.connectionRateLimit],
    ['applicationProfileId', draft.applicationProfileId],
    ['defaultPoolId', draft.defaultPoolId],
    ['accelerationEnabled', draft.accelerationEnabled],
  ];
  return fields.flatMap(([name, value]) => (value === null ? [] : [[name, String(value)]]));
}

/** Body of `POST /api/{v}/edges/{edgeId}/loadbalancer/config/virtualservers`, in the XSD's order. */
export function virtualServerXml(draft: VirtualServerDraft): XmlElement {
  return element(
    'virtualServer',
    {},
    draftFields(draft).map(([name, value]) => textElement(name, value)),
  );
}

/**
 * Body of `PUT …/virtualservers/{id}`: the current element with the draft's
 * fields written over it; every element the gateway does not model (vendor
 * profiles, service insertion) stays as the manager sent it.
 */
export function virtualServerUpdateXml(current: XmlElement, draft: VirtualServerDraft): XmlElement {
  return draftFields(draft).reduce(
    (node, [name, value]) => setChild(node, textElement(name, value), fieldOrder),
    current,
  );
}

export function readVirtualServer(node: XmlElement): VirtualServerRecord {
  requireRoot(node, 'virtualServer');
  return {
    virtualServerId: optionalText(node, 'virtualServerId'),
    name: requiredText(node, 'name'),
    description: optionalText(node, 'description'),
    enabled: optionalBoolean(node, 'enabled'),
    ipAddress: requiredText(node, 'ipAddress'),
    protocol: requiredText(node, 'protocol'),
    port: requiredText(node, 'port'),
    connectionLimit: optionalInteger(node, 'connectionLimit'),
    connectionRateLimit: optionalInteger(node, 'connectionRateLimit'),
    applicationProfileId: optionalText(node, 'applicationProfileId'),
    defaultPoolId: optionalText(node, 'defaultPoolId'),
    xml: node,
  };
}

/** `<loadBalancer>` holding `<virtualServer>`s (the list answer of …/virtualservers). */
export function readVirtualServerList(root: XmlElement): VirtualServerRecord[] {
  if (root.name !== 'loadBalancer')
    throw badResponse(`<loadBalancer> expected, got <${root.name}>`);
  return childElements(root, 'virtualServer').map(readVirtualServer);
}

/** What the gateway answers after a write: the draft as written, with the id the manager gave. */
export function writtenVirtualServer(
  draft: VirtualServerDraft,
  virtualServerId: string | null,
  xml: XmlElement | null = null,
): VirtualServerRecord {
  return {
    virtualServerId,
    name: draft.name,
    description: draft.description,
    enabled: draft.enabled,
    ipAddress: draft.ipAddress,
    protocol: draft.protocol,
    port: draft.port,
    connectionLimit: draft.connectionLimit,
    connectionRateLimit: draft.connectionRateLimit,
    applicationProfileId: draft.applicationProfileId,
    defaultPoolId: draft.defaultPoolId,
    xml,
  };
}
