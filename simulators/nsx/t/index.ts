/**
 * A strict in-process stand-in for an NSX-T 3.x / NSX 4.x manager's Policy
 * API: Basic auth on everything, JSON only, every request body and every
 * answer checked against the Policy API definitions
 * (`simulators/nsx/t/specs/`), `_revision` on every object with 412 for a
 * stale or missing one, in-use checks, system-owned services.
 * docs/upstreams.md (NSX-T) lists the facts it implements.
 */
import { pathSegments } from '../../recorded-request.ts';
import { hasBasicAuth, sendJson, startSimServer, type SimObserved } from '../../sim-server.ts';
import { firewallRoutes } from './firewall-routes.ts';
import { groupRoutes } from './group-routes.ts';
import { appProfileRoutes, lbServiceRoutes, virtualServerRoutes } from './lb-routes.ts';
import { locate } from './references.ts';
import { foreignChange } from './revisioned-write.ts';
import { seedNsxtState, type NsxtState, type PolicyObject } from './seed.ts';
import { serviceRoutes } from './service-routes.ts';
import {
  apiErrorBody,
  defaultSwitches,
  errorCodes,
  methodNotAllowed,
  notFound,
  sendModel,
  type NsxtCall,
  type NsxtCounters,
  type NsxtSwitches,
} from './sim-context.ts';
import { tier1Routes } from './tier1-routes.ts';

export type { NsxtSwitches, NsxtCounters } from './sim-context.ts';
export type { NsxtState, PolicyObject } from './seed.ts';

export interface NsxtSimulatorOptions {
  port?: number;
  username?: string;
  password?: string;
  /** More accounts the manager knows besides the gateway's. */
  users?: ReadonlyArray<{ username: string; password: string }>;
  /** Serve HTTPS with this key and certificate. */
  tls?: { key: string; cert: string };
  /**
   * The version `GET /api/v1/node/version` answers (default `3.2.3.0.0.21703624`).
   * Its major number picks the behaviours that differ: NSX-T 3.x deletes a
   * group in use with `force=true`, NSX 4.x ignores `force`.
   */
  version?: string;
  /** Switches to start with; change them later through `switches`. */
  switches?: Partial<NsxtSwitches>;
}

export interface NsxtSimulator extends SimObserved {
  /** The manager's base: `/api/v1/...` and `/policy/api/v1/...` are appended. */
  readonly url: URL;
  readonly username: string;
  readonly password: string;
  readonly version: string;
  readonly switches: NsxtSwitches;
  /** The simulated manager's objects, live. */
  readonly state: NsxtState;
  /** 412s answered and writes of the other client. */
  readonly counters: NsxtCounters;
  /** The stored object at a Policy path (`/infra/services/HTTP`), as GET answers it without rules. */
  object(path: string): PolicyObject | undefined;
  /**
   * Another client changes the object at a Policy path behind the gateway's
   * back: its `_revision` moves on (and `fields`, if given, are merged in).
   */
  touch(path: string, fields?: PolicyObject): void;
  /** Back to the seed data, default switches, counters zero, no faults; the request log is emptied. */
  reset(): void;
  close(): Promise<void>;
}

function route(call: NsxtCall, version: string): void {
  const [first, second, third, fourth, ...rest] = call.segments;
  if (
    first === 'api' &&
    second === 'v1' &&
    third === 'node' &&
    fourth === 'version' &&
    rest.length === 0
  ) {
    if (call.request.method !== 'GET') return methodNotAllowed(call);
    return sendModel(call, 'NodeVersion', { node_version: version, product_version: version });
  }
  if (first !== 'policy' || second !== 'api' || third !== 'v1' || fourth !== 'infra') {
    return notFound(call);
  }
  const [area, ...tail] = rest;
  switch (area) {
    case 'domains': {
      const [domainId = '', kind, ...inner] = tail;
      if (kind === 'groups') return groupRoutes(call, domainId, inner);
      if (kind === 'security-policies') return firewallRoutes(call, domainId, inner);
      return notFound(call);
    }
    case 'services':
      return serviceRoutes(call, tail);
    case 'lb-virtual-servers':
      return virtualServerRoutes(call, tail);
    case 'lb-services':
      return lbServiceRoutes(call, tail);
    case 'lb-app-profiles':
      return appProfileRoutes(call, tail);
    case 'tier-1s':
      return tier1Routes(call, tail);
    case undefined:
    default:
      return notFound(call);
  }
}

export async function startNsxtSimulator(
  options: NsxtSimulatorOptions = {},
): Promise<NsxtSimulator> {
  const username = options.username ?? 'admin';
  const password = options.password ?? 'simulator';
  const version = options.version ?? '3.2.3.0.0.21703624';
  const major = version.startsWith('3.') ? 3 : 4;
  let state = seedNsxtState();
  const switches: NsxtSwitches = { ...defaultSwitches(), ...options.switches };
  const counters: NsxtCounters = {
    conflicts: [],
    foreignWrites: 0,
    refusals: [],
    answerViolations: [],
  };
  const accounts = [{ username, password }, ...(options.users ?? [])];

  const server = await startSimServer(
    (request, response) => {
      const account = accounts.find((a) => hasBasicAuth(request.headers, a.username, a.password));
      if (account === undefined) {
        return sendJson(
          response,
          401,
          apiErrorBody(
            401,
            errorCodes.unauthenticated,
            'The credentials were incorrect or the account specified has been locked.',
            'common-services',
          ),
        );
      }
      route(
        {
          request,
          response,
          state,
          switches,
          counters,
          segments: pathSegments(request.rawPath),
          user: account.username,
          major,
        },
        version,
      );
    },
    {
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.tls === undefined ? {} : { tls: options.tls }),
      faultBodies: {
        malformed: { body: '{"results": [{"id": "web-ser', contentType: 'application/json' },
        error: (status) => ({
          body: JSON.stringify(apiErrorBody(status, 98, 'Simulated failure.')),
          contentType: 'application/json',
        }),
      },
    },
  );

  return {
    url: new URL(server.origin),
    username,
    password,
    version,
    requests: server.requests,
    faults: server.faults,
    nextRequest: (match) => server.nextRequest(match),
    switches,
    counters,
    get state() {
      return state;
    },
    object: (path) => locate(state, path)?.get(),
    touch(path, fields = {}) {
      const place = locate(state, path);
      const existing = place?.get();
      if (place === undefined || existing === undefined) throw new Error(`nothing at ${path}`);
      const id = String(existing['id']);
      const scratch = new Map([[id, { ...existing, ...fields }]]);
      foreignChange(
        { counters },
        { collection: scratch, id, parentPath: '', resourceType: '', definition: '' },
      );
      const changed = scratch.get(id);
      if (changed !== undefined) place.set(changed);
    },
    reset() {
      state = seedNsxtState();
      Object.assign(switches, defaultSwitches());
      counters.conflicts.length = 0;
      counters.foreignWrites = 0;
      counters.refusals.length = 0;
      counters.answerViolations.length = 0;
      server.faults.clear();
      server.requests.length = 0;
    },
    close: () => server.close(),
  };
}
