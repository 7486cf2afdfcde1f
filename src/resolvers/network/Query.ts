import { nullOnNotFound } from '../../errors.ts';
import type { QueryResolvers } from '../../generated/graphql.ts';
import { orLayer3, sectionKey } from '../../loaders/nsx.ts';
import { checkId } from '../../upstreams/nsx/checks.ts';

export const Query: QueryResolvers = {
  ipSets(_root, { scopeId }, { loaders }) {
    return loaders.nsx.ipSetsByScope.load(checkId(scopeId, 'scopeId'));
  },

  ipSet(_root, { id }, { loaders }) {
    checkId(id, 'id');
    return nullOnNotFound(() => loaders.nsx.ipSetById.load(id));
  },

  services(_root, { scopeId }, { loaders }) {
    return loaders.nsx.servicesByScope.load(checkId(scopeId, 'scopeId'));
  },

  service(_root, { id }, { loaders }) {
    checkId(id, 'id');
    return nullOnNotFound(() => loaders.nsx.serviceById.load(id));
  },

  applicationFirewall(_root, { portGroupId }, { loaders }) {
    checkId(portGroupId, 'portGroupId');
    return nullOnNotFound(() => loaders.nsx.firewallByPortGroup.load(portGroupId));
  },

  edges(_root, _args, { loaders }) {
    return loaders.nsx.edges.load('all');
  },

  edge(_root, { id }, { loaders }) {
    checkId(id, 'id');
    return nullOnNotFound(() => loaders.nsx.edgeById.load(id));
  },

  // A vCNS manager has no distributed firewall: its 404 answers null.
  distributedFirewall(_root, _args, { loaders }) {
    return nullOnNotFound(() => loaders.nsx.distributedFirewall.load('all'));
  },

  firewallSection(_root, { id, layer }, { loaders }) {
    checkId(id, 'id');
    return nullOnNotFound(() => loaders.nsx.firewallSection.load(sectionKey(orLayer3(layer), id)));
  },
};
