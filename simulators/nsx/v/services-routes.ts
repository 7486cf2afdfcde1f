/**
 * `/api/2.0/services/ipset/...` and `/api/2.0/services/application/...` on
 * the corrected paths of docs/upstreams.md (NSX) only: the documented-wrong
 * forms (no `scope` segment on the list, `scope` on the service create,
 * `applicationgroup` for a service) answer 404 like any unknown object.
 */
import { applicationRoutes } from './application-routes.ts';
import { ipSetRoutes } from './ip-set-routes.ts';
import { notFound, type SimCall } from './sim-context.ts';

export function servicesRoutes(call: SimCall, rest: string[]): void {
  const [kind, ...more] = rest;
  if (kind === 'ipset') return ipSetRoutes(call, more);
  if (kind === 'application') return applicationRoutes(call, more);
  // `applicationgroup` is the documented-wrong segment for a single service;
  // the simulator holds no service groups, so it knows no such object.
  notFound(call, call.request.rawPath);
}
