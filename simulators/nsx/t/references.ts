/** Where Policy paths are stored, and which stored objects refer to one (in-use checks before a delete). */
import type { NsxtState, PolicyObject } from './seed.ts';
import { errorCodes, sendError, type NsxtCall } from './sim-context.ts';

function listsPath(object: PolicyObject, fields: readonly string[], path: string): boolean {
  return fields.some((field) => {
    const value = object[field];
    return Array.isArray(value) && value.includes(path);
  });
}

/**
 * Paths of the objects that name `path`: rules and policies (as a group,
 * service or scope), virtual servers (as their LB service or application
 * profile).
 */
export function referrers(state: NsxtState, path: string): string[] {
  const found: string[] = [];
  for (const domain of state.domains.values()) {
    for (const { policy, rules } of domain.securityPolicies.values()) {
      if (listsPath(policy, ['scope'], path)) found.push(String(policy['path']));
      for (const rule of rules.values()) {
        if (listsPath(rule, ['source_groups', 'destination_groups', 'scope', 'services'], path)) {
          found.push(String(rule['path']));
        }
      }
    }
  }
  for (const server of state.virtualServers.values()) {
    if (server['lb_service_path'] === path || server['application_profile_path'] === path) {
      found.push(String(server['path']));
    }
  }
  return found;
}

/**
 * The delete check of a referable object: a system-owned one, or one that
 * another object names, is refused with 400 (answered here); true when the
 * delete may go on. `forced` skips the in-use check (NSX-T 3.x group delete).
 */
export function deletable(
  call: NsxtCall,
  kind: string,
  existing: PolicyObject,
  forced = false,
): boolean {
  const id = String(existing['id']);
  if (existing['_system_owned'] === true) {
    sendError(
      call,
      400,
      errorCodes.systemOwned,
      `${kind} ${id} is system owned and cannot be deleted.`,
    );
    return false;
  }
  const users = referrers(call.state, String(existing['path']));
  if (users.length === 0 || forced) return true;
  sendError(
    call,
    400,
    errorCodes.inUse,
    `Cannot delete ${kind} ${id}: it is referenced by ${users.join(', ')}.`,
  );
  return false;
}

/** Whether a group or service path names a stored object. */
export function pathExists(state: NsxtState, path: string): boolean {
  const group = /^\/infra\/domains\/([^/]+)\/groups\/([^/]+)$/.exec(path);
  if (group !== null) {
    return state.domains.get(group[1] ?? '')?.groups.has(group[2] ?? '') === true;
  }
  const service = /^\/infra\/services\/([^/]+)$/.exec(path);
  if (service !== null) return state.services.has(service[1] ?? '');
  return false;
}

/** Where a Policy path is stored: its map and key. */
export function locate(
  state: NsxtState,
  path: string,
): { get: () => PolicyObject | undefined; set: (object: PolicyObject) => void } | undefined {
  const parts = path.split('/').slice(1);
  const at = (map: Map<string, PolicyObject>, id: string) => ({
    get: () => map.get(id),
    set: (object: PolicyObject) => void map.set(id, object),
  });
  if (parts[0] !== 'infra') return undefined;
  if (parts.length === 3) {
    const top = new Map([
      ['services', state.services],
      ['lb-virtual-servers', state.virtualServers],
      ['lb-services', state.lbServices],
      ['lb-app-profiles', state.appProfiles],
      ['tier-1s', state.tier1s],
    ]);
    const map = top.get(parts[1] ?? '');
    return map === undefined ? undefined : at(map, parts[2] ?? '');
  }
  const domain = parts[1] === 'domains' ? state.domains.get(parts[2] ?? '') : undefined;
  if (domain === undefined) return undefined;
  if (parts.length === 5 && parts[3] === 'groups') return at(domain.groups, parts[4] ?? '');
  const entry =
    parts[3] === 'security-policies' ? domain.securityPolicies.get(parts[4] ?? '') : undefined;
  if (entry === undefined) return undefined;
  if (parts.length === 5) {
    return { get: () => entry.policy, set: (object) => void (entry.policy = object) };
  }
  if (parts.length === 7 && parts[5] === 'rules') return at(entry.rules, parts[6] ?? '');
  return undefined;
}
