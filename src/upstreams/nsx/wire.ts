/**
 * The network security manager's (NSX / vCNS) objects as the gateway reads
 * them off the wire: typed fields, plus the element as the manager sent it
 * wherever the gateway writes the object back (so that nothing it does not
 * model is lost). These are the mapper types of the network schema.
 */
import type { PolicyFacts } from './t/policy-facts.ts';
import type { XmlElement } from './xml/xml.ts';

/**
 * A record the NSX-T client fills carries what only NSX-T tells of the
 * object (t/policy-facts.ts); NSX-v's records have none. An NSX-T-only
 * field changes that room, not this file.
 */
export interface WithPolicyFacts {
  policy?: PolicyFacts;
}

/** `<scope>`: `globalroot-0`, `universalroot-0` or a vCenter moref. */
export interface ScopeRecord {
  id: string;
  name: string | null;
  objectTypeName: string | null;
}

/** What an `<ipset>` and an `<application>` share. */
export interface GroupingRecord extends WithPolicyFacts {
  objectId: string;
  name: string;
  /** null when the element is absent; `""` when it is empty. */
  description: string | null;
  revision: number | null;
  scope: ScopeRecord | null;
  inheritanceAllowed: boolean | null;
  /** The element as NSX-v sent it (kept on update); null from NSX-T, which speaks JSON. */
  xml: XmlElement | null;
}

/** A record as NSX-v's XML client reads it: with its element. */
export type WithXml<T> = T & { xml: XmlElement };

/** `<ipset>` */
export interface IpSetRecord extends GroupingRecord {
  /** Comma-separated addresses, ranges and CIDRs; `""` when empty. */
  value: string;
}

/** `<application>` */
export interface ServiceRecord extends GroupingRecord {
  /** element/applicationProtocol */
  protocol: string | null;
  /** element/value */
  ports: string | null;
  /** element/sourcePort */
  sourcePorts: string | null;
}

/** The fields of an edge's `<virtualServer>` that the gateway models: read (VirtualServerRecord) and written (VirtualServerDraft). */
export interface VirtualServerFields {
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

/** `<virtualServer>` of an edge's load balancer. */
export interface VirtualServerRecord extends VirtualServerFields, WithPolicyFacts {
  virtualServerId: string | null;
  /** The element as the manager sent it, when it was read (kept on update). */
  xml: XmlElement | null;
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

/** A rule of the configuration as far as an edit needs it; typed by `readRule` when asked for. */
export interface FirewallRuleElement {
  id: string | null;
  layer: FirewallLayerName;
  /** The rule as the manager sent it. */
  xml: XmlElement;
}

/** The rules of a configuration, each read only when asked for (firewall-xml.ts, `FirewallRules`). */
export interface FirewallRuleIndex extends Iterable<FirewallRuleElement> {
  /** Number of rules of a layer. */
  layerSize(layer: FirewallLayerName): number;
  /** The rule of that id; undefined when there is none. */
  find(ruleId: string): FirewallRuleElement | undefined;
}

/** `GET /api/2.0/app/firewall/{contextId}/config` with its ETag. */
export interface FirewallConfigRecord {
  contextId: string;
  /** The ETag without quotes. */
  generationNumber: string;
  /**
   * The rules in document order, off an index of the bytes. A configuration
   * runs to thousands of rules: an edit reads only the rule it changes
   * (firewall-xml.ts, `FirewallRules`).
   */
  ruleIndex: FirewallRuleIndex;
  /** The whole `<VshieldAppConfiguration>` document as the manager sent it. */
  document: XmlElement;
  /**
   * On a read made for an edit: frees the bytes the rules are read from at
   * once, instead of at V8's next full collection. Nothing of the record is
   * read afterwards.
   */
  release?: () => void;
}

/**
 * A firewall write's answer when only its generation number is asked for:
 * the configuration read back was checked, and its bytes freed at once.
 */
export interface FirewallGenerationRecord {
  contextId: string;
  generationNumber: string;
  ruleIndex?: undefined;
}

/** What a firewall write answers: the configuration read back, or its generation only. */
export type FirewallConfigAnswer = FirewallConfigRecord | FirewallGenerationRecord;

/** `<edgeSummary>` of `GET /api/{v}/edges` (NSX-v 6.x and vCNS 5.x). */
export interface EdgeRecord extends WithPolicyFacts {
  id: string;
  name: string | null;
  /** `gatewayServices` or `distributedRouter` */
  edgeType: string | null;
  /** `edgeStatus` (GREEN, YELLOW, RED, GREY) when the manager gives it, else `state`. */
  status: string | null;
  datacenterName: string | null;
}

/** `<rule>` of an NSX-v distributed firewall section. */
export interface DfwRuleRecord extends WithPolicyFacts {
  id: string | null;
  name: string | null;
  action: string;
  disabled: boolean;
  logged: boolean;
  notes: string | null;
  sources: XmlElement | null;
  destinations: XmlElement | null;
  services: XmlElement | null;
  appliedToList: XmlElement | null;
}

/** `<section>` of the distributed firewall, with its generation number. */
export interface FirewallSectionRecord extends WithPolicyFacts {
  id: string;
  name: string;
  layer: FirewallLayerName;
  generationNumber: string;
  rules: DfwRuleRecord[];
}

/** `GET /api/4.0/firewall/globalroot-0/config` */
export interface DistributedFirewallRecord {
  generationNumber: string;
  /** Layer-3 sections first, each layer in the manager's order. */
  sections: FirewallSectionRecord[];
}
