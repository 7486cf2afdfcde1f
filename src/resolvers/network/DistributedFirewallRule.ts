import type { DistributedFirewallRuleResolvers } from '../../generated/graphql.ts';
import { elementToJson } from '../../upstreams/nsx/xml-json.ts';
import type { XmlElement } from '../../upstreams/nsx/xml.ts';

const json = (node: XmlElement | null) => (node === null ? null : elementToJson(node));

export const DistributedFirewallRule: DistributedFirewallRuleResolvers = {
  sources: (rule) => json(rule.sources),
  destinations: (rule) => json(rule.destinations),
  services: (rule) => json(rule.services),
  appliedToList: (rule) => json(rule.appliedToList),
};
