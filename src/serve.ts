import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { capConnectionsPerAddress, enforceBodyRate } from './http/client-connections.ts';
import { createLogger, type Logger } from './observability/logger.ts';
import type { GatewayOptions } from './server.ts';

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * The Node server with the limits that keep slow or idle clients from holding
 * it: the header block and the whole request must arrive in time (checked
 * often enough for the timeouts to mean what they say), idle kept-alive
 * connections are closed, and connections beyond the cap (in all, or from one
 * address) are closed at once; a body must keep up a minimum rate.
 * The request timeout covers receiving the request only: an answer being
 * streamed (a subscription) is not cut by it.
 */
function createHttpServer(
  config: Config,
  logger: Logger,
  listener: (request: IncomingMessage, response: ServerResponse) => void,
): Server {
  const limits = config.server;
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(50, limits.headersTimeoutMs / 10)),
    },
    listener,
  );
  server.maxConnections = limits.maxConnections;
  let dropped = 0;
  let reported = 0;
  server.on('drop', () => {
    dropped += 1;
    if (Date.now() - reported < 10_000) return;
    reported = Date.now();
    logger.warn(
      { maxConnections: limits.maxConnections, droppedSoFar: dropped },
      'connection refused: HTTP_MAX_CONNECTIONS connections are open',
    );
  });
  let refusedPerAddress = 0;
  let reportedPerAddress = 0;
  capConnectionsPerAddress(server, limits.maxConnectionsPerAddress, (address) => {
    refusedPerAddress += 1;
    if (Date.now() - reportedPerAddress < 10_000) return;
    reportedPerAddress = Date.now();
    logger.warn(
      {
        address,
        maxConnectionsPerAddress: limits.maxConnectionsPerAddress,
        droppedSoFar: refusedPerAddress,
      },
      'connection refused: MAX_CONNECTIONS_PER_ADDRESS connections are open from this address',
    );
  });
  enforceBodyRate(server, limits.minBodyBytesPerSecond, (request) => {
    logger.info(
      {
        address: request.socket.remoteAddress,
        minBodyBytesPerSecond: limits.minBodyBytesPerSecond,
      },
      'request body too slow (MIN_BODY_BYTES_PER_SECOND): connection closed',
    );
  });
  return server;
}

/** Why listening failed, for the operator: names the variable to change, no stack trace. */
function listenFailure(error: NodeJS.ErrnoException, config: Config): string {
  const where = `${config.host}:${config.port}`;
  if (error.code === 'EADDRINUSE') {
    return `Cannot listen on ${where}: the port is already in use. Stop what listens there or set PORT to a free port.`;
  }
  if (error.code === 'EACCES') {
    return `Cannot listen on ${where}: not allowed to use that port. Set PORT to a port above 1023 (or grant the permission).`;
  }
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
    return `Cannot listen on ${where}: HOST is not an address of this machine.`;
  }
  return `Cannot listen on ${where} (PORT, HOST): ${error.code ?? error.message}.`;
}

/** Answered to any request other than /ready and /health that arrives while draining. */
function refuseWhileDraining(response: ServerResponse): void {
  response.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    connection: 'close',
    'retry-after': '1',
  });
  response.end(
    JSON.stringify({
      errors: [
        {
          message: 'The gateway is shutting down: send the request again.',
          extensions: { code: 'UPSTREAM_UNAVAILABLE' },
        },
      ],
    }),
  );
}

const answeredWhileDraining = new Set(['/ready', '/health']);

/**
 * What `npm start` runs (src/main.ts): the configuration, the simulators for
 * any appliance without an address, the gateway listening, a drain on
 * SIGTERM. `composition` leaves features out, for a benchmark's comparison
 * (`test/bench/gateway-without.ts`); `npm start` gives none.
 */
export async function serve(composition: Pick<GatewayOptions, 'without'> = {}): Promise<void> {
  const config = readConfig();
  // Loaded once the configuration holds: a bad one fails at once.
  const { createGateway } = await import('./server.ts');
  const { startSimulators } = await import('../simulators/index.ts');
  const logger = createLogger(config.logLevel);
  for (const service of ['vro', 'vra', 'nsx'] as const) {
    if (config[service].tlsInsecure) {
      logger.warn(
        { service },
        `TLS certificate checks are OFF for ${service} (${service.toUpperCase()}_TLS_INSECURE): for lab appliances only`,
      );
    }
  }
  const simulators = await startSimulators(config);
  for (const line of simulators.summary) logger.info(line);
  const gateway = createGateway(simulators.config, { ...composition, logger });
  let stopping = false;
  // Responses in flight, so that a drain can tell each client to close its
  // connection after its answer: a kept-alive connection would hold the drain.
  const inFlight = new Set<ServerResponse>();
  let whenIdle: (() => void) | undefined;
  const server = createHttpServer(config, logger, (request, response) => {
    if (stopping) {
      const pathname = (request.url ?? '/').split('?')[0] ?? '/';
      if (!answeredWhileDraining.has(pathname)) {
        refuseWhileDraining(response);
        request.resume();
        return;
      }
      response.setHeader('connection', 'close');
    }
    inFlight.add(response);
    response.once('close', () => {
      inFlight.delete(response);
      if (inFlight.size === 0) whenIdle?.();
    });
    gateway.requestListener(request, response);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    logger.fatal(
      { port: config.port, host: config.host, code: (error as NodeJS.ErrnoException).code },
      listenFailure(error as NodeJS.ErrnoException, config),
    );
    await Promise.allSettled([gateway.close(), simulators.close()]);
    logger.flush(() => process.exit(1));
    return;
  }
  const { port } = server.address() as AddressInfo;
  // The README's name: a browser keeps a cookie (SameSite=Strict) and an origin per host
  // name, so 127.0.0.1 and localhost are two sites to it; one name everywhere avoids mixing them.
  const shown = /^(?:127\.0\.0\.1|::1|localhost)$/.test(config.host)
    ? 'localhost'
    : config.host.includes(':')
      ? `[${config.host}]`
      : config.host;
  logger.info({ port }, `GraphQL gateway ready: GraphiQL at http://${shown}:${port}/graphql`);

  const stop = (): void => {
    whenIdle = undefined;
    server.close(() => {
      clearTimeout(force);
      void gateway
        .close()
        .then(() => simulators.close())
        .then(
          () => {
            logger.info('stopped');
            logger.flush(() => process.exit(0));
          },
          (error: unknown) => {
            logger.error({ error: String(error) }, 'stopping failed');
            logger.flush(() => process.exit(1));
          },
        );
    });
    server.closeIdleConnections();
  };
  let force: NodeJS.Timeout | undefined;

  // Draining: the port stays open so that /ready answers 503 (a load
  // balancer's probe sees why) and any other new request gets a 503 it can
  // retry elsewhere; requests in flight finish, then the port is closed.
  const drain = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info(
      { signal, graceMs: config.shutdownGraceMs },
      'draining: refusing new requests, finishing requests in flight',
    );
    gateway.readiness.draining = true;
    for (const response of inFlight) {
      if (!response.headersSent) response.setHeader('connection', 'close');
    }
    force = setTimeout(() => {
      logger.warn('grace period over: closing the connections still open');
      whenIdle = undefined;
      server.closeAllConnections();
      if (server.listening) stop();
    }, config.shutdownGraceMs);
    force.unref();
    // An idle kept-alive connection would only bring a request to refuse.
    server.closeIdleConnections();
    if (inFlight.size === 0) stop();
    else whenIdle = stop;
  };
  process.once('SIGTERM', () => drain('SIGTERM'));
  process.once('SIGINT', () => drain('SIGINT'));
}
