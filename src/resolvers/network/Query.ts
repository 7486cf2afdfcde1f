import { nullOnNotFound } from '../../errors.ts';
import type { QueryResolvers } from '../../generated/graphql.ts';
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
};
