import type { MutationResolvers } from '../../generated/graphql.ts';
import { orLayer3, sectionKey } from '../../loaders/nsx.ts';
import {
  checkDfwRuleInput,
  checkGenerationNumber,
  checkNsxId,
  checkIpSetInput,
  checkPosition,
  checkRuleInput,
  checkRuleInputs,
  checkServiceInput,
  checkVirtualServerInput,
} from '../../inputs/network.ts';
import type { FirewallAnswer } from '../../upstreams/nsx/v/firewall-edit.ts';
import type { FirewallConfigAnswer, FirewallSectionRecord } from '../../upstreams/nsx/wire.ts';
import type { GatewayContext } from '../../context.ts';
import type { GraphQLResolveInfo } from 'graphql';
import { groupingMutations } from './grouping-mutations.ts';
import { selectsField } from './selects-field.ts';

/** A firewall write answers the ruleset read back; later reads in the request see it (or read it again). */
function primeFirewall(
  context: GatewayContext,
  config: FirewallConfigAnswer,
): FirewallConfigAnswer {
  const loader = context.loaders.nsx.firewallByPortGroup.clear(config.contextId);
  if (config.ruleIndex !== undefined) loader.prime(config.contextId, config);
  return config;
}

/** Only a caller that asks for the rules has the configuration read back kept (megabytes on a large manager). */
function firewallAnswer(info: GraphQLResolveInfo): FirewallAnswer {
  return selectsField(info, 'rules') ? 'rules' : 'generation';
}

/** A section write answers the section read back; later reads in the request see it. */
function primeSection(
  context: GatewayContext,
  section: FirewallSectionRecord,
): FirewallSectionRecord {
  const key = sectionKey(section.layer, section.id);
  context.loaders.nsx.firewallSection.clear(key).prime(key, section);
  context.loaders.nsx.distributedFirewall.clearAll();
  return section;
}

const ipSets = groupingMutations({
  check: checkIpSetInput,
  byId: (loaders) => loaders.ipSetById,
  byScope: (loaders) => loaders.ipSetsByScope,
  create: (nsx, call, scopeId, draft) => nsx.createIpSet(call, scopeId, draft),
  update: (nsx, call, id, draft) => nsx.updateIpSet(call, id, draft),
  remove: (nsx, call, id, force) => nsx.deleteIpSet(call, id, force),
});

const services = groupingMutations({
  check: checkServiceInput,
  byId: (loaders) => loaders.serviceById,
  byScope: (loaders) => loaders.servicesByScope,
  create: (nsx, call, scopeId, draft) => nsx.createService(call, scopeId, draft),
  // the client answers nothing of a service update: it is read again
  update: (nsx, call, id, draft) => nsx.updateService(call, id, draft).then(() => undefined),
  remove: (nsx, call, id, force) => nsx.deleteService(call, id, force),
});

export const Mutation: MutationResolvers = {
  createIpSet: (_root, { scopeId, input }, context) => ipSets.create(context, scopeId, input),
  updateIpSet: (_root, { id, input }, context) => ipSets.update(context, id, input),
  deleteIpSet: (_root, { id, force }, context) => ipSets.remove(context, id, force),
  createService: (_root, { scopeId, input }, context) => services.create(context, scopeId, input),
  updateService: (_root, { id, input }, context) => services.update(context, id, input),
  deleteService: (_root, { id, force }, context) => services.remove(context, id, force),

  async addVirtualServer(_root, { edgeId, input }, { clients, call, loaders }) {
    checkNsxId(edgeId, 'edgeId');
    const server = await clients.nsx.addVirtualServer(call, edgeId, checkVirtualServerInput(input));
    loaders.nsx.virtualServersByEdge.clear(edgeId);
    return server;
  },

  async updateVirtualServer(_root, { edgeId, id, input }, { clients, call, loaders }) {
    checkNsxId(edgeId, 'edgeId');
    checkNsxId(id, 'id');
    const draft = checkVirtualServerInput(input);
    const server = await clients.nsx.updateVirtualServer(call, edgeId, id, draft);
    loaders.nsx.virtualServersByEdge.clear(edgeId);
    return server;
  },

  async deleteVirtualServer(_root, { edgeId, id }, { clients, call, loaders }) {
    checkNsxId(edgeId, 'edgeId');
    checkNsxId(id, 'id');
    await clients.nsx.deleteVirtualServer(call, edgeId, id);
    loaders.nsx.virtualServersByEdge.clear(edgeId);
    return { id, deleted: true };
  },

  async forceSyncEdge(_root, { edgeId }, { clients, call }) {
    checkNsxId(edgeId, 'edgeId');
    await clients.nsx.forceSyncEdge(call, edgeId);
    return { edgeId, accepted: true };
  },

  async updateApplicationFirewall(_root, { portGroupId, rules, generationNumber }, context, info) {
    checkNsxId(portGroupId, 'portGroupId');
    const drafts = checkRuleInputs(rules);
    const generation = checkGenerationNumber(generationNumber);
    const { clients, call } = context;
    const answer = firewallAnswer(info);
    const config = await clients.nsx.replaceFirewallRules(
      call,
      portGroupId,
      drafts,
      generation,
      answer,
    );
    return primeFirewall(context, config);
  },

  async addApplicationFirewallRule(_root, { portGroupId, rule, position }, context, info) {
    checkNsxId(portGroupId, 'portGroupId');
    const draft = checkRuleInput(rule);
    const at = checkPosition(position);
    const { clients, call } = context;
    const answer = firewallAnswer(info);
    const config = await clients.nsx.addFirewallRule(call, portGroupId, draft, at, answer);
    return primeFirewall(context, config);
  },

  async removeApplicationFirewallRule(_root, { portGroupId, ruleId }, context, info) {
    checkNsxId(portGroupId, 'portGroupId');
    checkNsxId(ruleId, 'ruleId');
    const { clients, call } = context;
    const answer = firewallAnswer(info);
    const config = await clients.nsx.removeFirewallRule(call, portGroupId, ruleId, answer);
    return primeFirewall(context, config);
  },

  async addFirewallSectionRule(_root, { sectionId, layer, rule }, context) {
    checkNsxId(sectionId, 'sectionId');
    const draft = checkDfwRuleInput(rule);
    const { clients, call } = context;
    const section = await clients.nsx.addSectionRule(call, orLayer3(layer), sectionId, draft);
    return primeSection(context, section);
  },

  async removeFirewallSectionRule(_root, { sectionId, layer, ruleId }, context) {
    checkNsxId(sectionId, 'sectionId');
    checkNsxId(ruleId, 'ruleId');
    const { clients, call } = context;
    const section = await clients.nsx.removeSectionRule(call, orLayer3(layer), sectionId, ruleId);
    return primeSection(context, section);
  },
};
