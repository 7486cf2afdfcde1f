import type { Resolvers } from '../../generated/graphql.ts';
import { Query } from './Query.ts';

/** What the gateway itself knows of the appliances behind it. */
export const gatewayResolvers: Resolvers = { Query };
