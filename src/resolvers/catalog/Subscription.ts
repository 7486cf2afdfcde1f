import type { SubscriptionResolvers } from '../../generated/graphql.ts';
import type { CatalogRequestEvent } from '../../upstreams/vra/v7/client.ts';
import { checkVraId } from '../../inputs/catalog.ts';

export const Subscription: SubscriptionResolvers = {
  catalogRequest: {
    subscribe(_parent, { id }, { clients, call }) {
      checkVraId(id, 'id');
      return clients.vra.watchCatalogRequest(call, id);
    },
    // An upstream error while polling becomes this event's error; the watch then ends.
    resolve(event: CatalogRequestEvent) {
      if ('error' in event) throw event.error;
      return event.request;
    },
  },
};
