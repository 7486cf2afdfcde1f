import { brokenJson } from '../../faults.ts';
import { startSimServer, type RecordedRequest, type SimObserved } from '../../sim-server.ts';
import { Blueprints } from './blueprints.ts';
import { blueprintSourceType, Catalog } from './catalog.ts';
import { Deployments, failureTrigger, type RequestStatus } from './deployments.ts';
import { Vra8Error } from './errors.ts';
import { Vra8Identity } from './identity.ts';
import { createVra8Routes, latestApiVersion, type Vra8Refusal } from './routes.ts';
import {
  databaseAdministratorsProject,
  developmentProject,
  qualityProject,
  seededProjects,
  seededTemplates,
  vra8Users,
  type SeededTemplate,
  type Vra8Project,
  type Vra8User,
} from './seed.ts';
import { Vra8Specs } from './specs.ts';

export type { RequestStatus, SeededTemplate, Vra8Project, Vra8Refusal, Vra8User };
export {
  blueprintSourceType,
  databaseAdministratorsProject,
  developmentProject,
  failureTrigger,
  latestApiVersion,
  qualityProject,
  seededProjects,
  seededTemplates,
  vra8Users,
};

export interface Vra8SimulatorOptions {
  port?: number;
  /** The service account: a member of every project and the catalog administrator. */
  username?: string;
  password?: string;
  /** Lifetime of bearer tokens (default 30 min). */
  tokenLifetimeMs?: number;
  /** Lifetime of the CSP login's refresh tokens (default 24 h). */
  refreshTokenLifetimeMs?: number;
  /** The accounts that may log in besides the service account (default: `vra8Users`). */
  users?: readonly Vra8User[];
  /** Released cloud templates already in the catalog (default: `seededTemplates`). */
  templates?: readonly SeededTemplate[];
  /** Time each state of a request lasts (CREATED, INPROGRESS, then its end); default 75 ms. */
  requestStepMs?: number;
  /** Requests and tokens age only through advance() (default: real time). */
  manualClock?: boolean;
  /** Serve HTTPS with this key and certificate. */
  tls?: { key: string; cert: string };
}

export interface Vra8Simulator extends SimObserved {
  /** The appliance root the gateway is configured with. */
  readonly url: URL;
  readonly username: string;
  readonly password: string;
  /** Requests received with this method on exactly this decoded path. */
  requestsTo(method: string, path: string): RecordedRequest[];
  /** Every request answered 400 (a body the spec refuses, inputs the item refuses), oldest first. */
  readonly refusals: Vra8Refusal[];
  /** The user a valid bearer token was issued to, or undefined (expired, revoked, unknown). */
  bearerUser(token: string): string | undefined;
  /** Every bearer token issued so far. */
  issuedTokens(): string[];
  /** Expires this user's bearer tokens: the next call with one gets 401 (its refresh tokens still work). */
  expireTokensOf(username: string): void;
  /** Expires this user's refresh tokens too: only a new CSP login works. */
  expireRefreshTokensOf(username: string): void;
  expireAllTokens(): void;
  setTokenLifetime(ms: number): void;
  /** The next `times` requests (orders or actions) end FAILED. */
  failNextRequests(times?: number): void;
  setRequestStepMs(ms: number): void;
  /** Moves the manual clock forward (needs `manualClock: true`). */
  advance(ms: number): void;
  close(): Promise<void>;
}

/** A strict vRA 8 (Aria Automation) simulator, checked against VMware's Swagger files. */
export async function startVra8Simulator(
  options: Vra8SimulatorOptions = {},
): Promise<Vra8Simulator> {
  const username = options.username ?? 'gateway@vsphere.local';
  const password = options.password ?? 'simulator';
  let manualNow = Date.now();
  const now = options.manualClock === true ? () => manualNow : Date.now;
  const identity = new Vra8Identity(
    {
      accessMs: options.tokenLifetimeMs ?? 30 * 60 * 1000,
      refreshMs: options.refreshTokenLifetimeMs ?? 24 * 60 * 60 * 1000,
    },
    now,
  );
  const blueprints = new Blueprints(now);
  const catalog = new Catalog(blueprints, now);
  const deployments = new Deployments(now, options.requestStepMs ?? 75);
  const users: Vra8User[] = [{ username, password }, ...(options.users ?? vra8Users)];
  seed(options.templates ?? seededTemplates, { blueprints, catalog, admin: username });
  const refusals: Vra8Refusal[] = [];

  const server = await startSimServer(
    createVra8Routes({
      specs: new Vra8Specs(),
      identity,
      users,
      projects: seededProjects,
      catalog,
      blueprints,
      deployments,
      admin: username,
      refusals,
    }),
    {
      ...options,
      faultBodies: {
        malformed: brokenJson,
        error: () => ({
          body: JSON.stringify(new Vra8Error(500, 'Internal Server Error').body()),
          contentType: 'application/json',
        }),
      },
    },
  );

  return {
    url: new URL(server.origin),
    username,
    password,
    requests: server.requests,
    refusals,
    faults: server.faults,
    nextRequest: (match) => server.nextRequest(match),
    requestsTo: (method, path) =>
      server.requests.filter((r) => r.method === method.toUpperCase() && r.path === path),
    bearerUser: (token) => identity.userOf(token, 'access'),
    issuedTokens: () => identity.issued('access'),
    expireTokensOf: (user) => identity.expireOf(user),
    expireRefreshTokensOf: (user) => identity.expireOf(user, ['access', 'refresh']),
    expireAllTokens: () => identity.expireAll(),
    setTokenLifetime: (ms) => {
      identity.lifetimes.accessMs = ms;
    },
    failNextRequests: (times = 1) => deployments.failNextRequests(times),
    setRequestStepMs: (ms) => {
      deployments.stepMs = ms;
    },
    advance: (ms) => {
      if (options.manualClock !== true) throw new Error('advance() needs manualClock: true');
      manualNow += ms;
    },
    close: () => server.close(),
  };
}

/** Each template created, versioned and released, its project's source imported, and shared. */
function seed(
  templates: readonly SeededTemplate[],
  world: { blueprints: Blueprints; catalog: Catalog; admin: string },
): void {
  for (const template of templates) {
    const blueprint = world.blueprints.create(
      {
        name: template.name,
        description: template.description,
        projectId: template.projectId,
        content: template.content,
      },
      world.admin,
      template.id,
    );
    world.blueprints.addVersion(
      blueprint,
      { version: template.version, release: true },
      world.admin,
    );
  }
  for (const projectId of new Set(templates.map((template) => template.projectId))) {
    const name = seededProjects.find((project) => project.id === projectId)?.name ?? projectId;
    world.catalog.saveSource(
      {
        name: `${name} cloud templates`,
        typeId: blueprintSourceType,
        config: { sourceProjectId: projectId },
      },
      world.admin,
      () => true,
    );
  }
  for (const template of templates)
    for (const projectId of template.sharedWith)
      world.catalog.share(projectId, 'CatalogItemIdentifier', template.id);
}
