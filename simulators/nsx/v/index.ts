/**
 * A strict in-process stand-in for the network security manager (NSX-v /
 * vCNS): Basic auth, XML bodies, the corrected paths of docs/upstreams.md (NSX) only,
 * revisions, in-use checks, and vShield App's generation-guarded firewall.
 */
import { pathSegments } from '../../recorded-request.ts';
import { hasBasicAuth, startSimServer, type SimObserved } from '../../sim-server.ts';
import { dfwRoutes } from './dfw-routes.ts';
import { edgeRoutes } from './edge-routes.ts';
import { firewallRoutes } from './firewall-routes.ts';
import { servicesRoutes } from './services-routes.ts';
import { withLargeFirewall } from './large-firewall.ts';
import { seedNsxState, type NsxState } from './seed.ts';
import {
  defaultSwitches,
  errorXml,
  notFound,
  type NsxSwitches,
  type SimCall,
  type SimManager,
} from './sim-context.ts';
import { el, writeXml } from './sim-xml.ts';
import { sendText } from '../../sim-server.ts';
import {
  sendGuardedAnswer,
  type GuardedAnswer,
  type RedirectStatus,
} from '../../guarded-answer.ts';

export type { NsxSwitches } from './sim-context.ts';
export { errorXml } from './sim-context.ts';
export type { NsxState } from './seed.ts';

export interface NsxSimulatorOptions {
  port?: number;
  username?: string;
  password?: string;
  /** Switches to start with (see NsxSwitches); change them later through `switches`. */
  switches?: Partial<NsxSwitches>;
  /** More accounts the manager knows besides the gateway's (per-user credential tests). */
  users?: ReadonlyArray<{ username: string; password: string }>;
  /** Serve HTTPS with this key and certificate. */
  tls?: { key: string; cert: string };
  /**
   * Which manager to be: `nsx-v` (NSX-v 6.4: edges under /api/4.0, the
   * distributed firewall), `vcns` (vCNS 5.x: edges under /api/3.0, no
   * distributed firewall) or `lab` (both edge versions and the distributed
   * firewall beside vShield App's, so that every example runs on one
   * simulator). Default `lab`.
   */
  manager?: 'nsx-v' | 'vcns' | 'lab';
  /**
   * Seed dvportgroup-63's firewall with a generated ruleset of about this
   * many bytes (load tests of large configurations); kept across `reset()`.
   */
  firewallBytes?: number;
  /**
   * How a path outside NSX-v's API (`/api/{major.minor}/…`) is answered,
   * with credentials or without: NSX-T's `/api/v1/node/version` above all.
   * '404' (default: the manager's XML not-found), '401-html', '401-json',
   * '403', 'redirect' (to `/`, `redirectStatus`, default 302) or a 200
   * login page.
   */
  foreignPaths?: GuardedAnswer;
  redirectStatus?: RedirectStatus;
}

const managers: Readonly<Record<'nsx-v' | 'vcns' | 'lab', SimManager>> = {
  'nsx-v': { edgeApiVersions: ['4.0'], distributedFirewall: true, applicationFirewall: false },
  vcns: { edgeApiVersions: ['3.0'], distributedFirewall: false, applicationFirewall: true },
  lab: { edgeApiVersions: ['3.0', '4.0'], distributedFirewall: true, applicationFirewall: true },
};

export interface NsxSimulator extends SimObserved {
  /** API root the gateway is configured with (the manager's base: `/api/...` is appended). */
  readonly url: URL;
  readonly username: string;
  readonly password: string;
  /** Behaviour switches, read on every request. */
  readonly switches: NsxSwitches;
  /** The simulated manager's objects, live. */
  readonly state: NsxState;
  /** The stored `<VshieldAppConfiguration>` of a context, as GET would answer it. */
  firewallDocument(contextId: string): string;
  /** Back to the seed data, default switches and no faults; the request log is emptied. */
  reset(): void;
  close(): Promise<void>;
}

function route(call: SimCall): void {
  const [api, version = '', area, ...rest] = call.segments;
  if (api !== 'api') return notFound(call, call.request.rawPath);
  if (version === '2.0' && area === 'services') return servicesRoutes(call, rest);
  if (
    version === '2.0' &&
    area === 'app' &&
    rest[0] === 'firewall' &&
    call.manager.applicationFirewall
  ) {
    return firewallRoutes(call, rest.slice(1));
  }
  if (area === 'edges') return edgeRoutes(call, version, rest);
  if (version === '4.0' && area === 'firewall') return dfwRoutes(call, rest);
  notFound(call, call.request.rawPath);
}

export async function startNsxSimulator(options: NsxSimulatorOptions = {}): Promise<NsxSimulator> {
  const username = options.username ?? 'gateway';
  const password = options.password ?? 'simulator';
  const seed = (): NsxState =>
    options.firewallBytes === undefined
      ? seedNsxState()
      : withLargeFirewall(seedNsxState(), options.firewallBytes);
  let state = seed();
  const manager = managers[options.manager ?? 'lab'];
  const switches: NsxSwitches = { ...defaultSwitches(), ...options.switches };

  const server = await startSimServer(
    (request, response) => {
      const call: SimCall = {
        request,
        manager,
        response,
        state,
        switches,
        segments: pathSegments(request.rawPath),
      };
      const foreign = options.foreignPaths ?? '404';
      if (foreign !== '404' && !/^\/api\/\d+\.\d+\//.test(request.rawPath)) {
        return sendGuardedAnswer(response, foreign, {
          host: request.headers.host,
          loginAt: '/',
          ...(options.redirectStatus === undefined
            ? {}
            : { redirectStatus: options.redirectStatus }),
          realm: 'NSX Manager',
          json: {
            details: 'Authentication required.',
            errorCode: 401,
            moduleName: 'vShield Manager',
          },
        });
      }
      const accounts = [{ username, password }, ...(options.users ?? [])];
      if (!accounts.some((a) => hasBasicAuth(request.headers, a.username, a.password))) {
        return sendText(response, 401, '', 'text/plain', {
          'www-authenticate': 'Basic realm="NSX Manager"',
        });
      }
      route(call);
    },
    {
      ...options,
      faultBodies: {
        // the manager's media type, cut mid-element
        malformed: { body: '<list><ipset><objectId>ipset-1</obj', contentType: 'application/xml' },
        error: (status) => ({
          body: errorXml(String(status), 'Simulated failure.'),
          contentType: 'application/xml',
        }),
      },
    },
  );

  return {
    url: new URL(server.origin),
    username,
    password,
    requests: server.requests,
    faults: server.faults,
    nextRequest: (match) => server.nextRequest(match),
    switches,
    get state() {
      return state;
    },
    firewallDocument(contextId) {
      const firewall = state.firewalls.find((f) => f.contextId === contextId);
      if (firewall === undefined) throw new Error(`no firewall context ${contextId}`);
      return writeXml(el('VshieldAppConfiguration', [firewall.configuration]));
    },
    reset() {
      state = seed();
      Object.assign(switches, defaultSwitches());
      server.faults.clear();
      server.requests.length = 0;
    },
    close: () => server.close(),
  };
}
