import { readFileSync, readdirSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { createSchema, createYoga, type YogaServerInstance } from 'graphql-yoga';
import { AuditLog } from './audit/audit-log.ts';
import { Authenticator } from './auth/authenticate.ts';
import { guardRootFields } from './auth/root-guard.ts';
import { SessionCookies } from './auth/session-cookie.ts';
import { SessionStore } from './auth/session-store.ts';
import { carryRequestAuth } from './auth/request-auth.ts';
import { SignInLimiter, signInLimits } from './auth/sign-in-limiter.ts';
import {
  clientSignal,
  createContext,
  type GatewayContext,
  type IdentityServices,
} from './context.ts';
import { authenticates } from './config.ts';
import type { GatewayConfig } from './gateway-config.ts';
import { ClientAddresses } from './client-address.ts';
import { graphiqlAssets } from './graphiql/graphiql-assets.ts';
import { registerSecrets } from './http/redact.ts';
import type { RemoteStore } from './cache/remote-store.ts';
import { RedisStore } from './cache/redis-store.ts';
import { renderGraphiqlPage } from './graphiql/graphiql-page.ts';
import { createLogger, yogaLogging, type Logger } from './observability/logger.ts';
import { Metrics } from './observability/metrics.ts';
import { Tracing } from './observability/tracing.ts';
import { checkHosts } from './plugins/allowed-hosts.ts';
import { canonicalEndpoint } from './plugins/canonical-endpoint.ts';
import { clientAddress } from './plugins/client-address.ts';
import { clientAuth } from './plugins/client-auth.ts';
import { cors } from './plugins/cors.ts';
import { csrf } from './plugins/csrf.ts';
import { errorCodes } from './plugins/error-codes.ts';
import { graphqlJit } from './plugins/graphql-jit.ts';
import { freshPerEvent } from './plugins/fresh-per-event.ts';
import { metricsEndpoint } from './plugins/metrics-endpoint.ts';
import { noFraming } from './plugins/no-framing.ts';
import { operationCost } from './plugins/operation-cost.ts';
import { multipartSubscriptions } from './plugins/multipart-subscriptions.ts';
import { operationLimits } from './plugins/operation-limits.ts';
import { loadPersistedOperations, persistedOperations } from './plugins/persisted-operations.ts';
import { portal } from './plugins/portal.ts';
import { createReadiness, readinessEndpoint, type Readiness } from './plugins/readiness.ts';
import { capBodies, requestLimits } from './plugins/request-limits.ts';
import { requestBudget } from './plugins/request-budget.ts';
import { requestLog } from './plugins/request-log.ts';
import { subscriptionLimit } from './plugins/subscription-limit.ts';
import { sseSingleConnection } from './plugins/sse-single-connection.ts';
import { safeResults } from './plugins/safe-results.ts';
import { tracingPlugin } from './plugins/tracing.ts';
import { carryClientAddress } from './request-info.ts';
import { uploads } from './plugins/uploads.ts';
import { resolvers } from './resolvers/index.ts';
import { closeClients, createClients, upstreamSeams, type Clients } from './upstreams/index.ts';

const schemaDir = new URL('../schema/', import.meta.url);
const endpoint = '/graphql';

/** The schema's SDL: every `schema/*.graphql`, in name order. */
export function loadTypeDefs(): string[] {
  return readdirSync(schemaDir)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => readFileSync(new URL(name, schemaDir), 'utf8'));
}

export interface Gateway {
  yoga: YogaServerInstance<object, GatewayContext>;
  /** The Node request listener: yoga behind a hard cap on request body bytes. */
  requestListener: RequestListener;
  clients: Clients;
  /** Sessions, sign-in limits, the audit log. */
  identity: IdentityServices;
  readiness: Readiness;
  metrics: Metrics;
  logger: Logger;
  /** Traces (OTEL_EXPORTER_OTLP_ENDPOINT); undefined when tracing is off. */
  tracing: Tracing | undefined;
  /** Closes the upstream pools (and exports the traces left). */
  close(): Promise<void>;
}

/**
 * Per-request features a composition can leave out, so that a benchmark can
 * measure what each costs against the same code without it
 * (`test/bench/gateway-without.ts`); `npm start` leaves none out.
 * - `request-log`: no log line per request (the request log plugin still names
 *   the operation, counts its errors for the metric and sends X-Request-Id);
 * - `metrics`: nothing observed (operations, upstream calls, cache look-ups)
 *   and no /metrics;
 * - `tracing`: no tracer, even with OTEL_EXPORTER_OTLP_ENDPOINT set;
 * - `root-guard`: the root fields unwrapped (no scope check, no audit of
 *   mutations): for measuring only, never to serve.
 */
export const optionalFeatures = ['request-log', 'metrics', 'tracing', 'root-guard'] as const;
export type OptionalFeature = (typeof optionalFeatures)[number];

export interface GatewayOptions {
  logger?: Logger;
  /** The store shared with other replicas; default: Redis at REDIS_URL when set, else none. */
  remote?: RemoteStore;
  /** Where audit events go; default: AUDIT_LOG. */
  audit?: AuditLog;
  /** Features left out (a benchmark's comparison): none by default. */
  without?: readonly OptionalFeature[];
}

/**
 * Host names are checked whenever nobody needs a credential (a page on a
 * rebinding name would hold every scope), and otherwise once ALLOWED_HOSTS
 * names the hosts.
 */
function checksHosts(config: GatewayConfig): boolean {
  return !authenticates(config.auth) || config.allowedHosts.length > 0;
}

/** Builds the gateway (no listening: `serve.ts` does that, tests use `yoga.fetch`). */
export function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Gateway {
  const logger = options.logger ?? createLogger(config.logLevel);
  const releaseSecrets = registerSecrets([
    config.vro.password,
    config.vra.password,
    config.nsx.password,
    ...config.auth.tokens.map((t) => t.token),
    config.auth.sessionSecret,
    ...(config.redis === undefined
      ? []
      : [config.redis.url.password, decodeURIComponent(config.redis.url.password)]),
  ]);
  const redis =
    options.remote !== undefined || config.redis === undefined
      ? undefined
      : new RedisStore({ url: config.redis.url, keyPrefix: config.redis.keyPrefix, logger });
  const remote = options.remote ?? redis;
  const without = new Set(options.without);
  const metrics = new Metrics();
  const observed = !without.has('metrics');
  const tracing =
    config.otlpEndpoint === undefined || without.has('tracing')
      ? undefined
      : new Tracing(config.otlpEndpoint);
  const clients = createClients(
    config,
    {
      ...(observed ? { observer: (event) => metrics.observeUpstreamCall(event) } : {}),
      ...(tracing === undefined ? {} : { tracer: tracing.upstream }),
    },
    remote,
  );
  const seams = upstreamSeams(clients);
  const caches = [
    ...(clients.vra.providerCache === undefined ? [] : [clients.vra.providerCache]),
    ...clients.vro.caches,
  ];
  if (observed) {
    for (const cache of caches) cache.observe((hit) => metrics.countCacheLookup(cache.name, hit));
    metrics.track(seams, caches);
  }
  const redisUp = remote === undefined ? undefined : () => remote.available;
  if (redisUp !== undefined && observed) metrics.trackRedis(redisUp);
  const readiness = createReadiness(seams, config.readyProbeIntervalMs, redisUp);
  const corsOrigins = new Set(config.corsOrigins);
  const sessions = new SessionStore({ remote, secret: config.auth.sessionSecret });
  const identity: IdentityServices = {
    authenticator: new Authenticator(config.auth, sessions),
    sessions,
    cookies: new SessionCookies(config.auth.sessionCookieSecure),
    signInLimiter: new SignInLimiter(signInLimits, Date.now, remote),
    audit: options.audit ?? new AuditLog(config.auth.audit),
    sessionScopes: new Set(config.auth.sessionScopes),
  };
  const schema = createSchema<GatewayContext>({ typeDefs: loadTypeDefs(), resolvers });
  const yoga = createYoga<object, GatewayContext>({
    schema: without.has('root-guard') ? schema : guardRootFields(schema, logger),
    graphqlEndpoint: endpoint,
    healthCheckEndpoint: '/health',
    landingPage: false,
    cors: false, // the `cors` plugin: no origin but the gateway's own and CORS_ORIGINS
    // Body sizes are enforced before yoga reads anything: requestLimits refuses a
    // declared Content-Length over the limits (413), the Node listener a POST
    // without one (411). Yoga's own cap would refuse uploads MAX_UPLOAD_BYTES
    // allows and costs a stream copy of every body (the benchmark's largest
    // avoidable cost).
    maxRequestBodySize: false,
    graphiql: { title: 'VMware automation gateway' },
    renderGraphiQL: renderGraphiqlPage,
    batching:
      config.limits.maxBatchOperations > 1 ? { limit: config.limits.maxBatchOperations } : false,
    logging: yogaLogging(logger),
    context: (initial) =>
      createContext(initial.request, clients, config, identity, clientSignal(initial)),
    plugins: [
      clientAddress(new ClientAddresses(config.trustedProxies)),
      cors(corsOrigins),
      noFraming(),
      graphiqlAssets(),
      ...(config.portal ? [portal()] : []),
      readinessEndpoint(readiness),
      ...(observed ? [metricsEndpoint(metrics)] : []),
      requestLog(
        without.has('request-log') ? undefined : logger,
        observed ? metrics : undefined,
        identity.authenticator.required,
      ),
      canonicalEndpoint(endpoint),
      csrf(corsOrigins, endpoint),
      clientAuth(identity.authenticator, identity.cookies, identity.audit, endpoint),
      requestLimits(config.limits, endpoint),
      sseSingleConnection(
        endpoint,
        (request, from): Response | Promise<Response> => {
          carryClientAddress(from, request);
          carryRequestAuth(from, request);
          return yoga.fetch(request);
        },
        config.server.maxSubscriptionsPerClient,
      ),
      multipartSubscriptions(),
      uploads(config.limits.maxRequestBytes),
      operationLimits(config.limits),
      operationCost(config.limits.maxUpstreamCalls, resolvers),
      subscriptionLimit(config.server.maxSubscriptionsPerClient, identity.authenticator.required),
      ...(config.persistedOperationsFile === undefined
        ? []
        : [
            persistedOperations(
              loadPersistedOperations(config.persistedOperationsFile),
              config.limits.maxTokens,
            ),
          ]),
      errorCodes(),
      safeResults(logger),
      freshPerEvent(),
      requestBudget(),
      ...(config.graphqlJit ? [graphqlJit()] : []),
      ...(tracing === undefined ? [] : [tracingPlugin(tracing)]),
    ],
  });
  return {
    yoga,
    // a malformed target or Host is answered 400 before any name is judged
    requestListener: capBodies(
      checksHosts(config)
        ? checkHosts(config.allowedHosts, yoga.requestListener)
        : yoga.requestListener,
    ),
    clients,
    identity,
    readiness,
    metrics,
    logger,
    tracing,
    close: async () => {
      await closeClients(clients);
      sessions.close();
      await identity.audit.close();
      await redis?.close();
      await tracing?.shutdown();
      releaseSecrets();
    },
  };
}
