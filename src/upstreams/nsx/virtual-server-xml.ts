/** Load-balancer virtual servers (`<virtualServer>`) onto the wire. */
import type { VirtualServerDraft } from './drafts.ts';
import type { VirtualServerRecord } from './wire.ts';
import { element, textElement, type XmlElement } from './xml.ts';

/** Body of `POST /api/{v}/edges/{edgeId}/loadbalancer/config/virtualservers`, in the XSD's order. */
export function virtualServerXml(draft: VirtualServerDraft): XmlElement {
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
  return element(
    'virtualServer',
    {},
    fields.flatMap(([name, value]) => (value === null ? [] : [textElement(name, String(value))])),
  );
}

/** What the gateway answers after a create: the draft as written, with the id the manager gave. */
export function createdVirtualServer(
  draft: VirtualServerDraft,
  virtualServerId: string | null,
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
  };
}
