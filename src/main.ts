import { createServer } from 'node:http';
import { ConfigError, loadConfig } from './config.ts';
import { createGateway } from './server.ts';
import { startSimulators } from './simulators/index.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const simulators = await startSimulators(config);
  for (const line of simulators.summary) console.log(line);
  const gateway = createGateway(simulators.config);
  const server = createServer(gateway.yoga.requestListener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const shown = config.host.includes(':') ? `[${config.host}]` : config.host;
  console.log(`GraphQL gateway ready: GraphiQL at http://${shown}:${config.port}/graphql`);

  const stop = (): void => {
    server.close(() => {
      void gateway
        .close()
        .then(() => simulators.close())
        .then(() => process.exit(0));
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

await main();
