import type { FirewallRuleResolvers } from '../../generated/graphql.ts';
import { elementToJson } from '../../upstreams/nsx/xml-json.ts';

export const FirewallRule: FirewallRuleResolvers = {
  source: (rule) => (rule.source === null ? null : elementToJson(rule.source)),
  destination: (rule) => (rule.destination === null ? null : elementToJson(rule.destination)),
  service: (rule) => (rule.service === null ? null : elementToJson(rule.service)),
};
