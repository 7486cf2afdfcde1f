import { nullOnNotFound } from '../../errors.ts';
import type { QueryResolvers } from '../../generated/graphql.ts';
import { orLayer3, sectionKey } from '../../loaders/nsx.ts';
import { checkNsxId } from '../../inputs/network.ts';

export const Query: QueryResolvers = {
  ipSets(_root, { scopeId }, { loaders }) {
    return loaders.nsx.ipSetsByScope.load(checkNsxId(scopeId, 'scopeId'));
  },

  ipSet(_root, { id }, { loaders }) {
    checkNsxId(id, 'id');
    return nullOnNotFound(() => loaders.nsx.ipSetById.load(id));
  },

  services(_root, { scopeId }, { loaders }) {
    return loaders.nsx.servicesByScope.load(checkNsxId(scopeId, 'scopeId'));
  },

  service(_root, { id }, { loaders }) {
    checkNsxId(id, 'id');
    return nullOnNotFound(() => loaders.nsx.serviceById.load(id));
  },

  applicationFirewall(_root, { portGroupId }, { loaders }) {
    checkNsxId(portGroupId, 'portGroupId');
    return nullOnNotFound(() => loaders.nsx.firewallByPortGroup.load(portGroupId));
  },

  edges(_root, _args, { loaders }) {
    return loaders.nsx.edges.load('all');
  },

  edge(_root, { id }, { loaders }) {
    checkNsxId(id, 'id');
    return nullOnNotFound(() => loaders.nsx.edgeById.load(id));
  },

  // A vCNS manager has no distributed firewall: its 404 answers null.
  distributedFirewall(_root, _args, { loaders }) {
    return nullOnNotFound(() => loaders.nsx.distributedFirewall.load('all'));
  },

  firewallSection(_root, { id, layer }, { loaders }) {
    checkNsxId(id, 'id');
    return nullOnNotFound(() => loaders.nsx.firewallSection.load(sectionKey(orLayer3(layer), id)));
  },
};
