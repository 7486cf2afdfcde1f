/** Which stored objects refer to a Policy path (in-use checks before a delete). */
import type { NsxtState, PolicyObject } from './seed.ts';

function listsPath(object: PolicyObject, fields: readonly string[], path: string): boolean {
  return fields.some((field) => {
    const value = object[field];
    return Array.isArray(value) && value.includes(path);
  });
}

/** Paths of the rules and policies that name `path` as a group, service or scope. */
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
  return found;
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
