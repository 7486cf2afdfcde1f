/**
 * Load-balancer virtual servers: `/policy/api/v1/infra/lb-virtual-servers[/{id}]`
 * (definitions `LBVirtualServer`, `LBVirtualServerListResult`). The paths a
 * virtual server names (service, pool, profiles) are not checked: the
 * simulator has no LB services or pools.
 */
import { collectionRoutes } from './collection-routes.ts';
import type { PolicyObject } from './seed.ts';
import { errorCodes, sendError, type NsxtCall } from './sim-context.ts';
import { addressFamily, portsProblem } from './value-checks.ts';

function completeVirtualServer(call: NsxtCall, server: PolicyObject): boolean {
  const address = String(server['ip_address']);
  if (address.includes('/') || address.includes('-') || addressFamily(address) === null) {
    sendError(call, 400, errorCodes.invalidBody, `Invalid ip_address ${address}.`);
    return false;
  }
  const problem = portsProblem(server['ports'] as string[]);
  if (problem !== null) {
    sendError(call, 400, errorCodes.invalidBody, `ports: ${problem}`);
    return false;
  }
  server['enabled'] ??= true;
  server['access_log_enabled'] ??= false;
  server['log_significant_event_only'] ??= false;
  return true;
}

export function lbRoutes(call: NsxtCall, rest: string[]): void {
  collectionRoutes(
    call,
    {
      members: call.state.virtualServers,
      parentPath: '/infra',
      resourceType: 'LBVirtualServer',
      definition: 'LBVirtualServer',
      listDefinition: 'LBVirtualServerListResult',
      complete: completeVirtualServer,
    },
    rest,
  );
}
