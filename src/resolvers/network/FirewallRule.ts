import type { FirewallRuleResolvers } from '../../generated/graphql.ts';
import { upstreamJson } from '../../json-bounds.ts';
import { elementToJson } from '../../upstreams/nsx/xml-json.ts';
import type { XmlElement } from '../../upstreams/nsx/xml.ts';

function part(element: XmlElement | null): unknown {
  return element === null ? null : upstreamJson('nsx', elementToJson(element));
}

export const FirewallRule: FirewallRuleResolvers = {
  source: (rule) => part(rule.source),
  destination: (rule) => part(rule.destination),
  service: (rule) => part(rule.service),
};
