import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack;
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  stack = await startStack();
  server = await listen(stack.gateway);
});
afterAll(async () => {
  await server.close();
  await stack.close();
});

describe('a client that goes away', () => {
  it('aborts the upstream request it was waiting for', async () => {
    const seam = stack.gateway.clients.vro.seam;
    stack.vro.faults.inject({ fault: { kind: 'delay', ms: 60_000 }, path: /\/workflows$/ });
    const arrival = stack.vro.nextRequest({ path: /\/workflows$/ });
    const controller = new AbortController();
    const pending = fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ workflows(first: 1) { totalCount } }' }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    const { ended } = await arrival;
    expect(seam.health.running).toBe(1);
    controller.abort();
    await pending;
    // the gateway closed its upstream connection: vRO saw the caller leave, not an answer
    expect(await ended).toBe('gone');
    expect(seam.health.running).toBe(0);
    const metrics = await (await stack.fetch('/metrics')).text();
    expect(metrics).toMatch(
      /upstream_request_duration_seconds_count\{[^}]*outcome="client-gone"[^}]*\} 1/,
    );
    stack.vro.faults.clear();
  });

  it('leaves the gateway serving the next request', async () => {
    const answer = await stack.gql<{ workflows: { totalCount: number } }>(
      '{ workflows(first: 1) { totalCount } }',
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.workflows.totalCount).toBeGreaterThan(0);
  });
});
