import type { DistributedFirewallRuleResolvers } from '../../generated/graphql.ts';
import { xmlPart } from './xml-part.ts';

export const DistributedFirewallRule: DistributedFirewallRuleResolvers = {
  sources: (rule) => xmlPart(rule.sources),
  destinations: (rule) => xmlPart(rule.destinations),
  services: (rule) => xmlPart(rule.services),
  appliedToList: (rule) => xmlPart(rule.appliedToList),
};
