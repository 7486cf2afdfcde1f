/**
 * `extensions.retryAfter` (runtime contract, added 2026-11-28): a front-end
 * told when to try again, in seconds, wherever the gateway knows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { UPSTREAM_RETRIES: '0' } });
});
afterAll(async () => {
  await stack.close();
});

describe('retryAfter', () => {
  it("carries the appliance's own Retry-After on UPSTREAM_UNAVAILABLE; the other appliances' fields keep their data", async () => {
    stack.vro.faults.inject({
      fault: { kind: 'status', status: 503, headers: { 'retry-after': '120' } },
      method: 'GET',
      path: /\/workflows\/?$/,
      times: 1,
    });
    const answer = await stack.gql<any>('{ workflows(first: 1) { totalCount } ipSets { id } }');
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors?.[0]?.path).toEqual(['workflows']);
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    expect(answer.errors?.[0]?.extensions?.['retryAfter']).toBe(120);
    expect(answer.data.ipSets.length).toBeGreaterThan(0);
  });

  it('is absent where the gateway does not know when (a 503 without Retry-After)', async () => {
    stack.vro.faults.inject({
      fault: { kind: 'status', status: 503 },
      method: 'GET',
      path: /\/workflows\/?$/,
      times: 1,
    });
    const answer = await stack.gql('{ workflows(first: 1) { totalCount } }');
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    expect(answer.errors?.[0]?.extensions).not.toHaveProperty('retryAfter');
  });

  it('carries the seconds until the sign-in limit lets the user name try again on RATE_LIMITED', async () => {
    const attempt = () =>
      stack.gql(
        'mutation { signIn(username: "retry-after@vsphere.local", password: "wrong") { name } }',
      );
    let answer = await attempt();
    for (
      let tries = 0;
      tries < 10 && answer.errors?.[0]?.extensions?.['code'] !== 'RATE_LIMITED';
      tries += 1
    ) {
      answer = await attempt();
    }
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('RATE_LIMITED');
    const retryAfter = answer.errors?.[0]?.extensions?.['retryAfter'];
    expect(retryAfter).toEqual(expect.any(Number));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(300);
  });
});
