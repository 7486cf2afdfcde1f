import type { CatalogRequestResolvers } from '../../generated/graphql.ts';
import { isFinalRequest } from '../../upstreams/vra/consumer-decode.ts';

export const CatalogRequest: CatalogRequestResolvers = {
  requestNumber: (request) => request.requestNumber ?? null,
  phase: (request) => request.phase ?? null,
  final: (request) => isFinalRequest(request),
  description: (request) => request.description ?? null,
  requestedFor: (request) => request.requestedFor ?? null,
  catalogItemId: (request) => request.catalogItemRef?.id ?? null,
  dateCreated: (request) => request.dateCreated ?? null,
  dateCompleted: (request) => request.dateCompleted ?? null,
  resources: (request, _args, { loaders }) =>
    loaders.vra.requestResources.load({ id: request.id, state: request.state }),
};
