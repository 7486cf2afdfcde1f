import { readFileSync, readdirSync } from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createSchema, createYoga, type YogaServerInstance } from 'graphql-yoga';
import { createContext, type GatewayContext } from './context.ts';
import type { GatewayConfig } from './gateway-config.ts';
import { graphiqlAssets } from './graphiql/graphiql-assets.ts';
import { renderGraphiqlPage } from './graphiql/graphiql-page.ts';
import { createLogger, type Logger } from './observability/logger.ts';
import { Metrics } from './observability/metrics.ts';
import { Tracing } from './observability/tracing.ts';
import { canonicalEndpoint } from './plugins/canonical-endpoint.ts';
import { clientAuth } from './plugins/client-auth.ts';
import { errorCodes } from './plugins/error-codes.ts';
import { metricsEndpoint } from './plugins/metrics-endpoint.ts';
import { operationLimits } from './plugins/operation-limits.ts';
import { loadPersistedOperations, persistedOperations } from './plugins/persisted-operations.ts';
import { portal } from './plugins/portal.ts';
import { createReadiness, readinessEndpoint, type Readiness } from './plugins/readiness.ts';
import { requestLimits } from './plugins/request-limits.ts';
import { requestLog } from './plugins/request-log.ts';
import { tracingPlugin } from './plugins/tracing.ts';
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
  readiness: Readiness;
  metrics: Metrics;
  logger: Logger;
  /** Traces (OTEL_EXPORTER_OTLP_ENDPOINT); undefined when tracing is off. */
  tracing: Tracing | undefined;
  /** Closes the upstream pools (and exports the traces left). */
  close(): Promise<void>;
}

export interface GatewayOptions {
  logger?: Logger;
}

/** Builds the gateway (no listening: `main.ts` does that, tests use `yoga.fetch`). */
export function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Gateway {
  const logger = options.logger ?? createLogger(config.logLevel);
  const metrics = new Metrics();
  const tracing = config.otlpEndpoint === undefined ? undefined : new Tracing(config.otlpEndpoint);
  const clients = createClients(config, {
    observer: (event) => metrics.observeUpstreamCall(event),
    ...(tracing === undefined ? {} : { tracer: tracing.upstream }),
  });
  const seams = upstreamSeams(clients);
  const providerCache = clients.vra.providerCache;
  providerCache?.observe((hit) => metrics.countCacheLookup(providerCache.name, hit));
  metrics.track(seams, providerCache === undefined ? [] : [providerCache]);
  const readiness = createReadiness(seams, config.readyProbeIntervalMs);
  const yoga = createYoga<object, GatewayContext>({
    schema: createSchema<GatewayContext>({ typeDefs: loadTypeDefs(), resolvers }),
    graphqlEndpoint: endpoint,
    healthCheckEndpoint: '/health',
    landingPage: false,
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
    logging: {
      debug: (...args) => logger.debug({ yoga: args.map(String) }, 'yoga'),
      info: (...args) => logger.info({ yoga: args.map(String) }, 'yoga'),
      warn: (...args) => logger.warn({ yoga: args.map(String) }, 'yoga'),
      error: (...args) => logger.error({ yoga: args.map(describe) }, 'yoga'),
    },
    context: (initial) => createContext(initial.request, clients, config, clientSignal(initial)),
    plugins: [
      graphiqlAssets(),
      ...(config.portal ? [portal()] : []),
      readinessEndpoint(readiness),
      metricsEndpoint(metrics),
      requestLog(logger, metrics),
      canonicalEndpoint(endpoint),
      clientAuth(config.gatewayTokens, endpoint),
      requestLimits(config.limits, endpoint),
      operationLimits(config.limits),
      ...(config.persistedOperationsFile === undefined
        ? []
        : [
            persistedOperations(
              loadPersistedOperations(config.persistedOperationsFile),
              config.limits.maxTokens,
            ),
          ]),
      errorCodes(),
      ...(tracing === undefined ? [] : [tracingPlugin(tracing)]),
    ],
  });
  return {
    yoga,
    requestListener: capBodies(yoga.requestListener),
    clients,
    readiness,
    metrics,
    logger,
    tracing,
    close: async () => {
      await closeClients(clients);
      await tracing?.shutdown();
    },
  };
}

/**
 * A native signal that aborts when the client goes away. Behind Node's http
 * server it follows the response's `close`: the adapter's own signal class can
 * abort without ever reading as aborted or firing its listeners.
 */
function clientSignal(initial: { request: Request }): AbortSignal {
  const { res } = initial as { res?: ServerResponse };
  if (res === undefined) return initial.request.signal;
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('The client went away.'));
  });
  return controller.signal;
}

function describe(value: unknown): string {
  return value instanceof Error ? `${value.name}: ${value.message}` : String(value);
}

/**
 * A POST body of undeclared length (chunked) could outgrow every limit before
 * anyone sees it: refused with 411 before yoga reads it. Browsers and GraphQL
 * clients always declare the length.
 */
function capBodies(listener: RequestListener): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'POST' && request.headers['content-length'] === undefined) {
      const body = JSON.stringify({
        errors: [
          {
            message: 'A POST must declare its Content-Length.',
            extensions: { code: 'BAD_USER_INPUT' },
          },
        ],
      });
      response.writeHead(411, {
        'content-type': 'application/json; charset=utf-8',
        connection: 'close',
      });
      response.end(body);
      request.resume();
      return;
    }
    listener(request, response);
  };
}
