import { brokenJson } from '../../faults.ts';
import type { GuardedAnswer, RedirectStatus } from '../../guarded-answer.ts';
import { startSimServer, type RecordedRequest, type SimObserved } from '../../sim-server.ts';
import { CatalogState } from './catalog.ts';
import { ConsumerState, seededRequest, type SimRequestOutcome } from './consumer.ts';
import type { SimEntitledItem } from './consumer-seed.ts';
import { TokenStore } from './identity.ts';
import { createVraRoutes, type RegisterStatus } from './routes.ts';
import type { SimCatalogItem, SimProvider } from './seed.ts';
import { simulatorUsers, type SimUser, type SimulatorUser } from '../users.ts';
import { vraCodes, vraErrorBody } from './vra-errors.ts';

export type {
  RegisterStatus,
  SimCatalogItem,
  SimEntitledItem,
  SimProvider,
  SimRequestOutcome,
  SimUser,
  SimulatorUser,
};
export { seededRequest, simulatorUsers };

export interface VraSimulatorOptions {
  port?: number;
  username?: string;
  password?: string;
  tenant?: string;
  /** Lifetime of issued tokens (default 24 h, as vRA). */
  tokenLifetimeMs?: number;
  /** How the register PUT answers: 200 with the item, 201 with a Location and no body, or 204 (default 200). */
  registerStatus?: RegisterStatus;
  /** Replace the seeded providers. */
  providers?: readonly SimProvider[];
  /** Replace the seeded catalog items. */
  catalogItems?: readonly SimCatalogItem[];
  /**
   * The accounts of the tenant that may log in besides the service account
   * (default: `simulatorUsers`). One given without groups is a member of every group.
   */
  users?: readonly SimUser[];
  /** Serve HTTPS with this key and certificate. */
  tls?: { key: string; cert: string };
  /** Replace the seeded entitled catalog items (with their entitlements and templates). */
  entitledItems?: readonly SimEntitledItem[];
  /** Time each state of a catalog request lasts (SUBMITTED, IN_PROGRESS, then final); default 75 ms. */
  requestStepMs?: number;
  /** Requests advance only through advance() (default: real time). */
  manualClock?: boolean;
  /** How submitted requests end (default SUCCESSFUL). */
  requestOutcome?: SimRequestOutcome;
  /** Catalog item submits answer 201 with only a Location header, no body (default: with the request). */
  emptySubmitAnswers?: boolean;
  /**
   * How a request without `Authorization` is answered, whatever its path
   * (`/iaas/api/about` included), but the login: '404' (default: the
   * routes' own answers), Tomcat's 401 page ('401-html'), a 401 vRA error
   * ('401-json'), Tomcat's 403 page, a redirect to `/vcac/`
   * (`redirectStatus`, default 302) or a 200 login page, as vRA 7 appliances
   * behind their authentication filter do.
   */
  unauthenticated?: GuardedAnswer;
  redirectStatus?: RedirectStatus;
}

export interface VraSimulator extends SimObserved {
  /** API root the gateway is configured with. */
  readonly url: URL;
  readonly username: string;
  readonly password: string;
  readonly tenant: string;
  /** Requests received with this method on exactly this decoded path. */
  requestsTo(method: string, path: string): RecordedRequest[];
  /** Current providers and catalog items (live state). */
  readonly providers: SimProvider[];
  readonly catalogItems: SimCatalogItem[];
  /** Entitled items, requests and resources of the consumer API (live state). */
  readonly consumer: ConsumerState;
  /** The next `times` submitted requests (catalog items or actions) end FAILED. */
  failNextRequests(times?: number): void;
  /** Time each state of a request lasts from now on. */
  setRequestStepMs(ms: number): void;
  /** Moves the manual clock of requests forward (needs `manualClock: true`). */
  advance(ms: number): void;
  /** Every token issued so far. */
  issuedTokens(): string[];
  /** The user a valid token was issued to, or undefined (expired, revoked, unknown). */
  tokenUser(token: string): string | undefined;
  /** Expires every token issued so far: the next catalog call with one gets 401. */
  expireAllTokens(): void;
  /** Expires the tokens issued so far to this user only. */
  expireTokensOf(username: string): void;
  setTokenLifetime(ms: number): void;
  setRegisterStatus(status: RegisterStatus): void;
  close(): Promise<void>;
}

/** A strict vRA 7 identity + catalog service simulator on a loopback port. */
export async function startVraSimulator(options: VraSimulatorOptions = {}): Promise<VraSimulator> {
  const username = options.username ?? 'gateway@vsphere.local';
  const password = options.password ?? 'simulator';
  const tenant = options.tenant ?? 'vsphere.local';
  const users = options.users ?? simulatorUsers;
  const tokens = new TokenStore(options.tokenLifetimeMs ?? 24 * 60 * 60 * 1000);
  const catalog = new CatalogState(tenant, options.providers, options.catalogItems);
  let manualNow = Date.now();
  const consumer = new ConsumerState({
    tenant,
    serviceUser: username,
    users,
    now: options.manualClock === true ? () => manualNow : Date.now,
    stepMs: options.requestStepMs ?? 75,
    items: options.entitledItems,
  });
  consumer.defaultOutcome = options.requestOutcome ?? 'SUCCESSFUL';
  consumer.emptySubmitAnswers = options.emptySubmitAnswers ?? false;
  let registerStatus: RegisterStatus = options.registerStatus ?? 200;

  const server = await startSimServer(
    createVraRoutes({
      credentials: { username, password, tenant },
      users,
      catalog,
      consumer,
      tokens,
      registerStatus: () => registerStatus,
      ...(options.unauthenticated === undefined
        ? {}
        : { unauthenticated: options.unauthenticated }),
      ...(options.redirectStatus === undefined ? {} : { redirectStatus: options.redirectStatus }),
    }),
    {
      ...options,
      faultBodies: {
        malformed: brokenJson,
        error: () => ({
          body: JSON.stringify(vraErrorBody(vraCodes.systemException, 'System exception.', null)),
          contentType: 'application/json',
        }),
      },
    },
  );

  return {
    url: new URL(server.origin),
    username,
    password,
    tenant,
    requests: server.requests,
    faults: server.faults,
    nextRequest: (match) => server.nextRequest(match),
    requestsTo: (method, path) =>
      server.requests.filter((r) => r.method === method.toUpperCase() && r.path === path),
    providers: catalog.providers,
    catalogItems: catalog.items,
    consumer,
    failNextRequests: (times = 1) => consumer.failNextRequests(times),
    setRequestStepMs: (ms) => {
      consumer.stepMs = ms;
    },
    advance: (ms) => {
      if (options.manualClock !== true) throw new Error('advance() needs manualClock: true');
      manualNow += ms;
    },
    issuedTokens: () => tokens.issued(),
    tokenUser: (token) => tokens.userOf(token),
    expireAllTokens: () => tokens.expireAll(),
    expireTokensOf: (user) => tokens.expireOf(user),
    setTokenLifetime: (ms) => {
      tokens.lifetimeMs = ms;
    },
    setRegisterStatus: (status) => {
      registerStatus = status;
    },
    close: () => server.close(),
  };
}
