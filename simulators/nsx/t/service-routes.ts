/**
 * Services: `/policy/api/v1/infra/services[/{service-id}]` (definitions
 * `Service`, `ServiceListResult`, entries `L4PortSetServiceEntry`). The seeded
 * system services (`_system_owned`, `is_default`) refuse every change.
 */
import { collectionRoutes } from './collection-routes.ts';
import { deletable } from './references.ts';
import type { PolicyObject } from './seed.ts';
import { errorCodes, sendError, type NsxtCall } from './sim-context.ts';
import { portsProblem } from './value-checks.ts';

function completeService(call: NsxtCall, service: PolicyObject): boolean {
  const servicePath = String(service['path']);
  const entries = (service['service_entries'] ?? []) as PolicyObject[];
  const done: PolicyObject[] = [];
  for (const [index, entry] of entries.entries()) {
    for (const field of ['destination_ports', 'source_ports']) {
      const problem = portsProblem((entry[field] ?? []) as string[], 15);
      if (problem !== null) {
        sendError(call, 400, errorCodes.invalidBody, `${field}: ${problem}`);
        return false;
      }
    }
    const id =
      typeof entry['id'] === 'string'
        ? entry['id']
        : typeof entry['display_name'] === 'string'
          ? entry['display_name']
          : `entry-${index + 1}`;
    done.push({
      ...entry,
      id,
      display_name: entry['display_name'] ?? id,
      path: `${servicePath}/service-entries/${id}`,
      parent_path: servicePath,
      relative_path: id,
      marked_for_delete: false,
    });
  }
  service['service_entries'] = done;
  service['is_default'] = false;
  service['service_type'] = 'NON_ETHER';
  return true;
}

export function serviceRoutes(call: NsxtCall, rest: string[]): void {
  collectionRoutes(
    call,
    {
      members: call.state.services,
      parentPath: '/infra',
      resourceType: 'Service',
      definition: 'Service',
      listDefinition: 'ServiceListResult',
      complete: completeService,
      beforeDelete: (inner, existing) => deletable(inner, 'Service', existing),
    },
    rest,
  );
}
