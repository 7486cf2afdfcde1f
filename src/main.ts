import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createLogger } from './observability/logger.ts';
import { createGateway } from './server.ts';
import { startSimulators } from './simulators/index.ts';

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
  const server = createServer(gateway.requestListener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shown = config.host.includes(':') ? `[${config.host}]` : config.host;
  logger.info({ port }, `GraphQL gateway ready: GraphiQL at http://${shown}:${port}/graphql`);

  let stopping = false;
  const drain = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info(
      { signal, graceMs: config.shutdownGraceMs },
      'draining: no new connections, finishing requests in flight',
    );
    gateway.readiness.draining = true;
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
        .then(() => {
          logger.info('stopped');
          process.exit(0);
        });
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', () => drain('SIGTERM'));
  process.once('SIGINT', () => drain('SIGINT'));
}

await main();
