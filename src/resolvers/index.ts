import type { Resolvers } from '../generated/graphql.ts';
import { catalogResolvers } from './catalog/index.ts';
import { gatewayResolvers } from './gateway/index.ts';
import { identityResolvers } from './identity/index.ts';
import { networkResolvers } from './network/index.ts';
import { orchestrationResolvers } from './orchestration/index.ts';
import { DateTimeScalar, FileScalar, JSONScalar } from './scalars.ts';

type RootName = 'Query' | 'Mutation' | 'Subscription';

const domains: Resolvers[] = [
  orchestrationResolvers,
  catalogResolvers,
  networkResolvers,
  identityResolvers,
  gatewayResolvers,
];

function mergeRoot<K extends RootName>(name: K): NonNullable<Resolvers[K]> {
  return Object.assign({}, ...domains.map((domain) => domain[name])) as NonNullable<Resolvers[K]>;
}

/** Every resolver, the domains' root fields merged into one Query, Mutation and Subscription. */
export const resolvers: Resolvers = {
  ...(Object.assign({}, ...domains) as Resolvers),
  JSON: JSONScalar,
  DateTime: DateTimeScalar,
  File: FileScalar,
  Query: mergeRoot('Query'),
  Mutation: mergeRoot('Mutation'),
  Subscription: mergeRoot('Subscription'),
};
