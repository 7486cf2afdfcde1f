/**
 * The supergraph Hive Gateway serves in the bench's `providers` scenario:
 * GraphQL Mesh composes it from the OpenAPI description beside this file, at
 * bench time (`mesh-compose -o <file>`), with the vRA simulator's URL in
 * VRA_URL. The bearer is read at run time from the gateway's VRA_TOKEN.
 */
import { defineConfig } from '@graphql-mesh/compose-cli';
import { loadOpenAPISubgraph } from '@omnigraph/openapi';

const endpoint = process.env['VRA_URL'];
if (endpoint === undefined) throw new Error('VRA_URL is not set');

export const composeConfig = defineConfig({
  subgraphs: [
    {
      sourceHandler: loadOpenAPISubgraph('vra', {
        source: new URL('vra-providers.openapi.json', import.meta.url).pathname,
        endpoint,
        operationHeaders: {
          authorization: 'Bearer {env.VRA_TOKEN}',
          accept: 'application/json',
        },
      }),
    },
  ],
});
