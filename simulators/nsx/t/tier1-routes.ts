import { collectionRoutes } from './collection-routes.ts';
import type { NsxtCall } from './sim-context.ts';

/** Tier-1 gateways: `/policy/api/v1/infra/tier-1s[/{tier-1-id}]`, read only here. */
export function tier1Routes(call: NsxtCall, rest: string[]): void {
  collectionRoutes(
    call,
    {
      members: call.state.tier1s,
      parentPath: '/infra',
      resourceType: 'Tier1',
      definition: 'Tier1',
      listDefinition: 'Tier1ListResult',
      readOnly: true,
    },
    rest,
  );
}
