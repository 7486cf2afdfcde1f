import { auditServer } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClientStack, type ClientStack } from '../helpers/clients.ts';

let gateway: ClientStack;

beforeAll(async () => {
  gateway = await startClientStack();
});
afterAll(() => gateway.close());

describe('GraphQL over HTTP (graphql-http audit)', () => {
  it('passes every audit of graphql-http with no warning or error', async () => {
    const results = await auditServer({ url: gateway.endpoint });
    const failed = results
      .filter((result) => result.status !== 'ok')
      .map((result) => `${result.status}: ${result.name}`);
    expect(failed).toEqual([]);
    expect(results.length).toBeGreaterThan(30);
  });
});
