import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createLogger } from './observability/logger.ts';

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

async function main(): Promise<void> {
  const config = readConfig();
  // Loaded once the configuration holds: a bad one fails at once.
  const { createGateway } = await import('./server.ts');
  const { startSimulators } = await import('./simulators/index.ts');
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
  const gateway = createGateway(simulators.config, { logger });
  let stopping = false;
  // Responses in flight, so that a drain can tell each client to close its
  // connection after its answer: a kept-alive connection would hold the drain.
  const inFlight = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    inFlight.add(response);
    response.once('close', () => inFlight.delete(response));
    if (stopping) response.setHeader('connection', 'close');
    gateway.requestListener(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shown = config.host.includes(':') ? `[${config.host}]` : config.host;
  logger.info({ port }, `GraphQL gateway ready: GraphiQL at http://${shown}:${port}/graphql`);

  const drain = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info(
      { signal, graceMs: config.shutdownGraceMs },
      'draining: no new connections, finishing requests in flight',
    );
    gateway.readiness.draining = true;
    for (const response of inFlight) {
      if (!response.headersSent) response.setHeader('connection', 'close');
    }
    const force = setTimeout(() => {
      logger.warn('grace period over: closing the connections still open');
      server.closeAllConnections();
    }, config.shutdownGraceMs);
    force.unref();
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
  process.once('SIGTERM', () => drain('SIGTERM'));
  process.once('SIGINT', () => drain('SIGINT'));
}

await main();
