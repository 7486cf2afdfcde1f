import type { FirewallConfigResolvers } from '../../generated/graphql.ts';
import { readRulesSteps } from '../../upstreams/nsx/v/firewall-xml.ts';
import { inSlices } from '../../upstreams/nsx/xml/xml-slices.ts';

export const FirewallConfig: FirewallConfigResolvers = {
  // thousands of rules on a large configuration: typed a slice at a time
  rules: async (config) => {
    // a write answered by its generation only is made when no rule is asked for (Mutation.ts)
    if (config.ruleIndex === undefined)
      throw new Error('the rules of a firewall write were not kept');
    const rules = await inSlices(readRulesSteps(config));
    return [
      ...rules.filter((rule) => rule.layer === 'LAYER3'),
      ...rules.filter((rule) => rule.layer === 'LAYER2'),
    ];
  },
};
