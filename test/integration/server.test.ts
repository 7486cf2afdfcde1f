import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

describe('the gateway server', () => {
  it('answers the liveness probe on /health', async () => {
    const response = await stack.fetch('/health');
    expect(response.status).toBe(200);
  });

  it('serves GraphiQL to browsers with no CDN host in the page', async () => {
    const response = await stack.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('renderYogaGraphiQL');
    expect(page).toContain('query Explore');
    const hosts = [...page.matchAll(/(?:https?:)?\/\/([a-z0-9.-]+\.[a-z]{2,})/gi)].map((m) => m[1]);
    expect(hosts).toEqual([]);
  });

  it('serves every GraphiQL asset the page refers to from the gateway itself', async () => {
    const page = await (await stack.fetch('/graphql', { headers: { accept: 'text/html' } })).text();
    const assets = [...page.matchAll(/(?:href|src)="(\/graphiql-assets\/[^"]+)"/g)].map(
      (m) => m[1]!,
    );
    const workers = ['editorWorkerService', 'json', 'graphql'].map(
      (label) => `/graphiql-assets/${label}.worker.js`,
    );
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of [...assets, ...workers]) {
      const response = await stack.fetch(asset);
      expect(response.status, asset).toBe(200);
      expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
    }
  });

  it('answers the schema over GraphQL', async () => {
    const answer = await stack.gql('{ __type(name: "Workflow") { name } }');
    expect(answer.data).toEqual({ __type: { name: 'Workflow' } });
  });
});
