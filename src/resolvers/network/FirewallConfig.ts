import type { FirewallConfigResolvers } from '../../generated/graphql.ts';

export const FirewallConfig: FirewallConfigResolvers = {
  rules: (config) => [
    ...config.rules.filter((rule) => rule.layer === 'LAYER3'),
    ...config.rules.filter((rule) => rule.layer === 'LAYER2'),
  ],
};
