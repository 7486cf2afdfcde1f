import type { MutationResolvers } from '../../generated/graphql.ts';
import {
  checkGenerationNumber,
  checkId,
  checkIpSetInput,
  checkPosition,
  checkRuleInput,
  checkRuleInputs,
  checkServiceInput,
  checkVirtualServerInput,
} from '../../upstreams/nsx/checks.ts';
import {
  addFirewallRule,
  removeFirewallRule,
  replaceFirewallRules,
} from '../../upstreams/nsx/firewall-edit.ts';
import type { FirewallConfigRecord } from '../../upstreams/nsx/wire.ts';
import type { GatewayContext } from '../../context.ts';

/** A firewall write answers the ruleset read back; later reads in the request see it. */
function primeFirewall(
  context: GatewayContext,
  config: FirewallConfigRecord,
): FirewallConfigRecord {
  context.loaders.nsx.firewallByPortGroup.clear(config.contextId).prime(config.contextId, config);
  return config;
}

export const Mutation: MutationResolvers = {
  async createIpSet(_root, { scopeId, input }, { clients, call, loaders }) {
    checkId(scopeId, 'scopeId');
    const draft = checkIpSetInput(input);
    const id = await clients.nsx.createIpSet(call, scopeId, draft);
    loaders.nsx.ipSetsByScope.clearAll();
    return loaders.nsx.ipSetById.clear(id).load(id);
  },

  async updateIpSet(_root, { id, input }, { clients, call, loaders }) {
    checkId(id, 'id');
    const draft = checkIpSetInput(input);
    await clients.nsx.updateIpSet(call, id, draft);
    loaders.nsx.ipSetsByScope.clearAll();
    return loaders.nsx.ipSetById.clear(id).load(id);
  },

  async deleteIpSet(_root, { id, force }, { clients, call, loaders }) {
    checkId(id, 'id');
    // An explicit `force: null` arrives as null despite the default.
    await clients.nsx.deleteIpSet(call, id, (force as boolean | null) === true);
    loaders.nsx.ipSetById.clear(id);
    loaders.nsx.ipSetsByScope.clearAll();
    return { id, deleted: true };
  },

  async createService(_root, { scopeId, input }, { clients, call, loaders }) {
    checkId(scopeId, 'scopeId');
    const draft = checkServiceInput(input);
    const id = await clients.nsx.createService(call, scopeId, draft);
    loaders.nsx.servicesByScope.clearAll();
    return loaders.nsx.serviceById.clear(id).load(id);
  },

  async updateService(_root, { id, input }, { clients, call, loaders }) {
    checkId(id, 'id');
    const draft = checkServiceInput(input);
    await clients.nsx.updateService(call, id, draft);
    loaders.nsx.servicesByScope.clearAll();
    return loaders.nsx.serviceById.clear(id).load(id);
  },

  async deleteService(_root, { id, force }, { clients, call, loaders }) {
    checkId(id, 'id');
    await clients.nsx.deleteService(call, id, (force as boolean | null) === true);
    loaders.nsx.serviceById.clear(id);
    loaders.nsx.servicesByScope.clearAll();
    return { id, deleted: true };
  },

  addVirtualServer(_root, { edgeId, input }, { clients, call }) {
    checkId(edgeId, 'edgeId');
    return clients.nsx.addVirtualServer(call, edgeId, checkVirtualServerInput(input));
  },

  async forceSyncEdge(_root, { edgeId }, { clients, call }) {
    checkId(edgeId, 'edgeId');
    await clients.nsx.forceSyncEdge(call, edgeId);
    return { edgeId, accepted: true };
  },

  async updateApplicationFirewall(_root, { portGroupId, rules, generationNumber }, context) {
    checkId(portGroupId, 'portGroupId');
    const drafts = checkRuleInputs(rules);
    const generation = checkGenerationNumber(generationNumber);
    const { clients, call } = context;
    const config = await replaceFirewallRules(clients.nsx, call, portGroupId, drafts, generation);
    return primeFirewall(context, config);
  },

  async addApplicationFirewallRule(_root, { portGroupId, rule, position }, context) {
    checkId(portGroupId, 'portGroupId');
    const draft = checkRuleInput(rule);
    const at = checkPosition(position);
    const config = await addFirewallRule(context.clients.nsx, context.call, portGroupId, draft, at);
    return primeFirewall(context, config);
  },

  async removeApplicationFirewallRule(_root, { portGroupId, ruleId }, context) {
    checkId(portGroupId, 'portGroupId');
    checkId(ruleId, 'ruleId');
    const config = await removeFirewallRule(context.clients.nsx, context.call, portGroupId, ruleId);
    return primeFirewall(context, config);
  },
};
