import type { FirewallRuleResolvers } from '../../generated/graphql.ts';
import { xmlPart } from './xml-part.ts';

export const FirewallRule: FirewallRuleResolvers = {
  source: (rule) => xmlPart(rule.source),
  destination: (rule) => xmlPart(rule.destination),
  service: (rule) => xmlPart(rule.service),
};
