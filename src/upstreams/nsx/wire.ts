/**
 * The network security manager's (NSX / vCNS) objects as the gateway reads
 * them off the wire: typed fields, plus the element as the manager sent it
 * wherever the gateway writes the object back (so that nothing it does not
 * model is lost). These are the mapper types of the network schema.
 */
import type { XmlElement } from './xml.ts';

/** `<scope>`: `globalroot-0`, `universalroot-0` or a vCenter moref. */
export interface ScopeRecord {
  id: string;
  name: string | null;
  objectTypeName: string | null;
}

/** `<ipset>` */
export interface IpSetRecord {
  objectId: string;
  name: string;
  /** null when the element is absent; `""` when it is empty. */
  description: string | null;
  /** Comma-separated addresses, ranges and CIDRs; `""` when empty. */
  value: string;
  revision: number | null;
  scope: ScopeRecord | null;
  inheritanceAllowed: boolean | null;
  xml: XmlElement;
}

/** `<application>` */
export interface ServiceRecord {
  objectId: string;
  name: string;
  description: string | null;
  /** element/applicationProtocol */
  protocol: string | null;
  /** element/value */
  ports: string | null;
  /** element/sourcePort */
  sourcePorts: string | null;
  revision: number | null;
  scope: ScopeRecord | null;
  inheritanceAllowed: boolean | null;
  xml: XmlElement;
}

/** `<virtualServer>` of an edge's load balancer. */
export interface VirtualServerRecord {
  virtualServerId: string | null;
  name: string;
  description: string | null;
  enabled: boolean | null;
  ipAddress: string;
  protocol: string;
  port: string;
  connectionLimit: number | null;
  connectionRateLimit: number | null;
  applicationProfileId: string | null;
  defaultPoolId: string | null;
}

export type FirewallLayerName = 'LAYER3' | 'LAYER2';

/** `<layer3FirewallRule>` / `<layer2FirewallRule>` of vShield App. */
export interface FirewallRuleRecord {
  id: string | null;
  layer: FirewallLayerName;
  action: string;
  disabled: boolean;
  logged: boolean;
  precedence: string | null;
  notes: string | null;
  source: XmlElement | null;
  destination: XmlElement | null;
  service: XmlElement | null;
  /** The rule as the manager sent it. */
  xml: XmlElement;
}

/** `GET /api/2.0/app/firewall/{contextId}/config` with its ETag. */
export interface FirewallConfigRecord {
  contextId: string;
  /** The ETag without quotes. */
  generationNumber: string;
  /** In document order. */
  rules: FirewallRuleRecord[];
  /** The whole `<VshieldAppConfiguration>` document as the manager sent it. */
  document: XmlElement;
}
