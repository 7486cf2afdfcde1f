/**
 * Checked GraphQL inputs, ready to be written. In a draft, `undefined` means
 * "not given": left out of a create, kept from the current object in an
 * update; `null` means "clear it".
 */
import type { FirewallLayerName, VirtualServerFields } from './wire.ts';
import type { XmlElement } from './xml/xml.ts';

export interface IpSetDraft {
  name: string;
  description: string | null | undefined;
  /** Comma-free addresses, ranges and CIDRs. */
  addresses: string[];
  inheritanceAllowed: boolean | undefined;
}

export interface ServiceDraft {
  name: string;
  description: string | null | undefined;
  /** Upper case, one of the known application protocols. */
  protocol: string;
  ports: string | null | undefined;
  sourcePorts: string | null | undefined;
  inheritanceAllowed: boolean | undefined;
}

/** A virtual server to write: the modelled fields (the protocol lower case, as the manager spells it: http, https, tcp, udp) and acceleration. */
export interface VirtualServerDraft extends VirtualServerFields {
  accelerationEnabled: boolean | null;
}

/** A JSON value of a rule part (`source`, ...) and the element it stands for. */
export interface RulePart {
  json: unknown;
  xml: XmlElement;
}

export interface RuleDraft {
  id: string | undefined;
  layer: FirewallLayerName;
  action: string;
  disabled: boolean;
  logged: boolean;
  precedence: string | null;
  notes: string | null | undefined;
  source: RulePart | null | undefined;
  destination: RulePart | null | undefined;
  service: RulePart | null | undefined;
}

/** A new rule of a distributed firewall section. */
export interface DfwRuleDraft {
  name: string | undefined;
  /** Lower case, as the manager's rule examples spell it: allow, deny, reject. */
  action: string;
  disabled: boolean;
  logged: boolean;
  notes: string | undefined;
  sources: RulePart | undefined;
  destinations: RulePart | undefined;
  services: RulePart | undefined;
  appliedToList: RulePart | undefined;
}
