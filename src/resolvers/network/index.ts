import type { Resolvers } from '../../generated/graphql.ts';
import { DistributedFirewallRule } from './DistributedFirewallRule.ts';
import { Edge } from './Edge.ts';
import { FirewallConfig } from './FirewallConfig.ts';
import { FirewallRule } from './FirewallRule.ts';
import { IpSet } from './IpSet.ts';
import { Mutation } from './Mutation.ts';
import { Query } from './Query.ts';
import { Service } from './Service.ts';
import { VirtualServer } from './VirtualServer.ts';

/** Resolvers of the network domain (NSX / vCNS). */
export const networkResolvers: Resolvers = {
  Query,
  Mutation,
  IpSet,
  Service,
  VirtualServer,
  FirewallConfig,
  FirewallRule,
  Edge,
  DistributedFirewallRule,
};
