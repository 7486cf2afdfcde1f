/**
 * The load balancer (definitions in `simulators/nsx/t/specs/`):
 *
 * - virtual servers `/policy/api/v1/infra/lb-virtual-servers[/{id}]`
 *   (`LBVirtualServer`, `LBVirtualServerListResult`): `lb_service_path`, when
 *   given, and `application_profile_path` must name a stored LB service and
 *   application profile (400 otherwise). The pool and persistence profile
 *   paths are not checked: the simulator has no pools.
 * - LB services `/policy/api/v1/infra/lb-services[/{id}]` (`LBService`,
 *   `LBServiceListResult`): `connectivity_path`, when given, must name a
 *   stored Tier-1; one that a virtual server names cannot be deleted.
 * - application profiles `/policy/api/v1/infra/lb-app-profiles[/{id}]`
 *   (`LBAppProfile` by `resource_type`: `LBHttpProfile`, `LBFastTcpProfile`,
 *   `LBFastUdpProfile`; `LBAppProfileListResult`): the manager's three default
 *   profiles are system owned; one that a virtual server names cannot be
 *   deleted.
 */
import { collectionRoutes } from './collection-routes.ts';
import { deletable, locate } from './references.ts';
import type { PolicyObject } from './seed.ts';
import { errorCodes, sendError, type NsxtCall } from './sim-context.ts';
import { addressFamily, portsProblem } from './value-checks.ts';

/** The stored object of `collection` (`lb-services`, …) at `path`, if `path` names one. */
function storedIn(call: NsxtCall, collection: string, path: unknown): boolean {
  if (typeof path !== 'string' || !path.startsWith(`/infra/${collection}/`)) return false;
  return locate(call.state, path)?.get() !== undefined;
}

/** Answers 400 (a value the manager refuses) and returns false. */
function refuse(call: NsxtCall, message: string): false {
  sendError(call, 400, errorCodes.invalidBody, message);
  return false;
}

function completeVirtualServer(call: NsxtCall, server: PolicyObject): boolean {
  const address = String(server['ip_address']);
  if (address.includes('/') || address.includes('-') || addressFamily(address) === null) {
    return refuse(call, `Invalid ip_address ${address}.`);
  }
  const problem = portsProblem(server['ports'] as string[]);
  if (problem !== null) return refuse(call, `ports: ${problem}`);
  const service = server['lb_service_path'];
  if (service !== undefined && !storedIn(call, 'lb-services', service)) {
    return refuse(call, `lb_service_path: invalid path ${JSON.stringify(service)}.`);
  }
  const profile = server['application_profile_path'];
  if (!storedIn(call, 'lb-app-profiles', profile)) {
    return refuse(call, `application_profile_path: invalid path ${JSON.stringify(profile)}.`);
  }
  server['enabled'] ??= true;
  server['access_log_enabled'] ??= false;
  server['log_significant_event_only'] ??= false;
  return true;
}

export function virtualServerRoutes(call: NsxtCall, rest: string[]): void {
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

function completeLbService(call: NsxtCall, service: PolicyObject): boolean {
  const tier1 = service['connectivity_path'];
  if (tier1 !== undefined && !storedIn(call, 'tier-1s', tier1)) {
    return refuse(call, `connectivity_path: invalid path ${JSON.stringify(tier1)}.`);
  }
  service['enabled'] ??= true;
  service['size'] ??= 'SMALL';
  service['error_log_level'] ??= 'INFO';
  service['access_log_enabled'] ??= false;
  service['relax_scale_validation'] ??= false;
  return true;
}

export function lbServiceRoutes(call: NsxtCall, rest: string[]): void {
  collectionRoutes(
    call,
    {
      members: call.state.lbServices,
      parentPath: '/infra',
      resourceType: 'LBService',
      definition: 'LBService',
      listDefinition: 'LBServiceListResult',
      complete: completeLbService,
      beforeDelete: (inner, existing) => deletable(inner, 'LBService', existing),
    },
    rest,
  );
}

const profileTypes = new Set(['LBHttpProfile', 'LBFastTcpProfile', 'LBFastUdpProfile']);

/** The profile type a write names (the body's, else the stored one's); null when none. */
function profileTypeOf(call: NsxtCall, existing: PolicyObject | undefined): string | null {
  let sent: unknown;
  try {
    sent = (JSON.parse(call.request.body.toString('utf8')) as Record<string, unknown> | null)?.[
      'resource_type'
    ];
  } catch {
    sent = undefined; // readBody answers the broken body
  }
  if (typeof sent === 'string') return profileTypes.has(sent) ? sent : null;
  const stored = existing?.['resource_type'];
  return typeof stored === 'string' ? stored : null;
}

export function appProfileRoutes(call: NsxtCall, rest: string[]): void {
  const existing = rest.length === 1 ? call.state.appProfiles.get(rest[0] ?? '') : undefined;
  const method = call.request.method;
  const storedType = existing?.['resource_type'];
  let resourceType = typeof storedType === 'string' ? storedType : 'LBHttpProfile';
  if (rest.length === 1 && (method === 'PUT' || method === 'PATCH')) {
    const type = profileTypeOf(call, existing);
    if (type === null) {
      return void refuse(
        call,
        `resource_type must be one of ${[...profileTypes].join(', ')} in an application profile.`,
      );
    }
    if (existing !== undefined && existing['resource_type'] !== type) {
      return void refuse(call, `resource_type of ${rest[0] ?? ''} cannot change to ${type}.`);
    }
    resourceType = type;
  }
  collectionRoutes(
    call,
    {
      members: call.state.appProfiles,
      parentPath: '/infra',
      resourceType,
      definition: resourceType,
      listDefinition: 'LBAppProfileListResult',
      beforeDelete: (inner, stored) => deletable(inner, 'LBAppProfile', stored),
    },
    rest,
  );
}
