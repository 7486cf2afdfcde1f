import { afterEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../helpers/stack.ts';

const context = 'dvportgroup-63';
const firewallPath = new RegExp(`^/api/2\\.0/app/firewall/${context}/config$`);
const add = `mutation ($n: String!) {
  addApplicationFirewallRule(portGroupId: "${context}", rule: { action: "deny", notes: $n, source: { address: { containerId: "ipset-3" } } }) {
    generationNumber
  }
}`;

const stacks: Stack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});

const firewallCalls = (s: Stack) => s.nsx.requests.filter((r) => firewallPath.test(r.path));

describe('firewall edits waiting for an earlier edit of the same port group', () => {
  it('give up with UPSTREAM_TIMEOUT when their request budget, counted from their arrival, runs out, while the edit holding the port group finishes', async () => {
    const s = await startStack({ env: { UPSTREAM_TIMEOUT_MS: '2500' } });
    stacks.push(s);
    // Each firewall call takes 800 ms: an edit (GET, POST, GET) holds the port group for about 2.4 s,
    // within its budget; a waiter then has at most 0.6 s left: its read cannot finish, so it never writes.
    s.nsx.faults.inject({ fault: { kind: 'delay', ms: 800 }, path: firewallPath });
    const started = performance.now();
    const holder = s.gql<any>(add, { n: 'holder' });
    while (firewallCalls(s).length === 0) await new Promise((r) => setTimeout(r, 5));
    const waiters = ['second', 'third'].map(async (n) => {
      const answer = await s.gql<any>(add, { n });
      return { answer, ms: performance.now() - started };
    });

    for (const { answer, ms } of await Promise.all(waiters)) {
      expect(answer.data).toBeNull();
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_TIMEOUT');
      expect(answer.errors?.[0]?.extensions?.['upstream']).toMatchObject({ service: 'nsx' });
      // Their own budget, counted from their arrival: not the holder's edit and then a fresh deadline.
      expect(ms).toBeGreaterThanOrEqual(2400);
      expect(ms).toBeLessThan(2500 + 1000);
    }
    const held = await holder;
    expect(held.errors).toBeUndefined();
    const document = s.nsx.firewallDocument(context);
    expect(document).toContain('<notes>holder</notes>');
    expect(document).not.toContain('<notes>second</notes>');

    // Nothing was left holding the port group.
    s.nsx.faults.clear();
    const next = await s.gql<any>(add, { n: 'next' });
    expect(next.errors).toBeUndefined();
    expect(s.nsx.firewallDocument(context)).toContain('<notes>next</notes>');
  });

  it('answers every queued edit against a hung manager within about one deadline each, not one after another', async () => {
    const s = await startStack({ env: { UPSTREAM_TIMEOUT_MS: '800' } });
    stacks.push(s);
    s.nsx.faults.inject({ fault: { kind: 'delay', ms: 600_000 }, path: firewallPath });
    const started = performance.now();
    const answers = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((n) => s.gql<any>(add, { n })));
    const elapsed = performance.now() - started;
    for (const answer of answers) {
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_TIMEOUT');
    }
    // Five edits queued one behind the other used to take 5 x 800 ms; now each waits at most its own deadline.
    expect(elapsed).toBeLessThan(2 * 800 + 500);
    s.nsx.faults.clear();
    expect((await s.gql<any>(add, { n: 'after' })).errors).toBeUndefined();
  });

  it('answers every one of five concurrent edits against a manager whose POST hangs within UPSTREAM_TIMEOUT_MS + 1 s of its arrival, 20 runs over', async () => {
    const timeoutMs = 1200;
    const s = await startStack({ env: { UPSTREAM_TIMEOUT_MS: String(timeoutMs) } });
    stacks.push(s);
    s.nsx.faults.inject({
      fault: { kind: 'delay', ms: 600_000 },
      path: firewallPath,
      method: 'POST',
    });
    const late: number[] = [];
    for (let run = 0; run < 20; run += 1) {
      const answers = await Promise.all(
        ['a', 'b', 'c', 'd', 'e'].map(async (n, i) => {
          // staggered arrivals: some edits queue behind the lock, some behind slots, some re-read
          await new Promise((r) => setTimeout(r, (run * 7 + i * 37) % 150));
          const arrived = performance.now();
          const answer = await s.gql<any>(add, { n: `${n}-${run}` });
          return { answer, ms: performance.now() - arrived };
        }),
      );
      for (const { answer, ms } of answers) {
        expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_TIMEOUT');
        if (ms > timeoutMs + 1000) late.push(ms);
      }
    }
    expect(late).toEqual([]);
  }, 60_000);
});
