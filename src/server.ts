import { readFileSync, readdirSync } from 'node:fs';
import { createSchema, createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { createContext, type GatewayContext } from './context.ts';
import type { GatewayConfig } from './gateway-config.ts';
import { serveGraphiqlAsset } from './graphiql/graphiql-assets.ts';
import { renderGraphiqlPage } from './graphiql/graphiql-page.ts';
import { resolvers } from './resolvers/index.ts';
import { closeClients, createClients, type Clients } from './upstreams/index.ts';

const schemaDir = new URL('../schema/', import.meta.url);

/** The schema's SDL: every `schema/*.graphql`, in name order. */
export function loadTypeDefs(): string[] {
  return readdirSync(schemaDir)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => readFileSync(new URL(name, schemaDir), 'utf8'));
}

export interface Gateway {
  yoga: YogaServerInstance<object, GatewayContext>;
  clients: Clients;
  /** Closes the upstream pools. */
  close(): Promise<void>;
}

/** Builds the gateway (no listening: `main.ts` does that, tests use `yoga.fetch`). */
export function createGateway(config: GatewayConfig): Gateway {
  const clients = createClients(config);
  const yoga = createYoga<object, GatewayContext>({
    schema: createSchema<GatewayContext>({ typeDefs: loadTypeDefs(), resolvers }),
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    landingPage: false,
    graphiql: { title: 'VMware automation gateway' },
    renderGraphiQL: renderGraphiqlPage,
    context: ({ request }) => createContext(request, clients, config),
    plugins: [graphiqlAssets()],
  });
  return { yoga, clients, close: () => closeClients(clients) };
}

function graphiqlAssets(): Plugin {
  return {
    async onRequest(payload) {
      const response = await serveGraphiqlAsset(payload.url.pathname);
      if (response !== undefined) payload.endResponse(response);
    },
  };
}
