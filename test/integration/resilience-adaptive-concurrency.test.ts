import { afterEach, describe, expect, it } from 'vitest';
import { KneeLoad } from '../../simulators/knee.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

const stacks: Stack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});

async function stackWith(env: Record<string, string> = {}): Promise<Stack> {
  const stack = await startStack({ env });
  stacks.push(stack);
  return stack;
}

type Limits = Record<string, { limit: number; running: number; queued: number }>;

async function readyLimits(stack: Stack): Promise<Limits> {
  const body = (await (await stack.fetch('/ready')).json()) as { upstreams: Limits };
  return body.upstreams;
}

async function metricLimits(stack: Stack): Promise<Record<string, number>> {
  const text = await (await stack.fetch('/metrics')).text();
  const limits: Record<string, number> = {};
  for (const match of text.matchAll(/^upstream_concurrency_limit\{service="(\w+)"\} (\d+)$/gm)) {
    limits[match[1] ?? ''] = Number(match[2]);
  }
  return limits;
}

const workflowsPath = /^\/vco\/api\/workflows$/;

describe('adaptive concurrency', () => {
  it("shows each upstream's current limit on /ready and /metrics: 32 to start with, by default", async () => {
    const stack = await stackWith();
    const ready = await readyLimits(stack);
    for (const service of ['vro', 'vra', 'nsx']) {
      expect(ready[service]).toMatchObject({ limit: 32, running: 0, queued: 0 });
    }
    expect(await metricLimits(stack)).toEqual({ vro: 32, vra: 32, nsx: 32 });
  });

  it('shows the fixed cap when UPSTREAM_ADAPTIVE_CONCURRENCY is false', async () => {
    const stack = await stackWith({
      UPSTREAM_ADAPTIVE_CONCURRENCY: 'false',
      UPSTREAM_MAX_CONCURRENCY: '8',
    });
    expect((await readyLimits(stack))['vro']?.limit).toBe(8);
    expect(await metricLimits(stack)).toEqual({ vro: 8, vra: 8, nsx: 8 });
  });

  it('lowers the limit of an appliance that slows down with the calls it is sent, and answers every operation', async () => {
    const stack = await stackWith();
    // 20 ms up to 4 calls in flight, then 20 ms × inFlight / 4: 160 ms with 32
    const appliance = new KneeLoad(20, 4);
    stack.vro.faults.inject({
      fault: { kind: 'delay', ms: (response) => appliance.delayFor(response) },
      path: workflowsPath,
    });
    // at rest first: what one call takes alone
    for (let i = 0; i < 10; i++) {
      expect((await stack.gql('{ workflows(first: 1) { totalCount } }')).errors).toBeUndefined();
    }
    // six rounds: the first in-use window starts a probe of the latency at rest, which takes about one
    for (let round = 0; round < 6; round++) {
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          stack.gql(`{ workflows(first: ${(i % 20) + 1}) { totalCount } }`),
        ),
      );
      for (const answer of answers) expect(answer.errors).toBeUndefined();
    }
    const limit = (await readyLimits(stack))['vro']?.limit ?? Number.NaN;
    expect(limit).toBeLessThan(32);
    expect(limit).toBeGreaterThanOrEqual(4);
    expect((await metricLimits(stack))['vro']).toBe(limit);
    // the other upstreams were not called: their limits did not move
    expect((await readyLimits(stack))['nsx']?.limit).toBe(32);
  });
});
