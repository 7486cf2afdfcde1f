import type { IpSetResolvers } from '../../generated/graphql.ts';

export const IpSet: IpSetResolvers = {
  id: (ipSet) => ipSet.objectId,
  // The manager keeps one comma-separated value.
  addresses: (ipSet) =>
    ipSet.value
      .split(',')
      .map((address) => address.trim())
      .filter((address) => address !== ''),
  policyPath: (ipSet) => ipSet.policy?.path ?? null,
};
