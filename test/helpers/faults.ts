/**
 * The fault matrix every upstream goes through (issue 5, point 5): one query
 * that needs all three upstreams, a fault on one of them, and what the
 * gateway must make of it.
 */
import { describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.ts';
import type { UpstreamService } from '../../src/errors.ts';
import type { Fault } from '../../simulators/faults.ts';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startStack, type GraphQLAnswer, type Stack, type StackOptions } from './stack.ts';

/** One field per upstream, each needing exactly one read of it (vRA: and a token). */
export const acrossUpstreams =
  '{ workflows(first: 2) { totalCount } providers(first: 2) { totalCount } ipSets { id } }';

export const fieldOf: Record<UpstreamService, 'workflows' | 'providers' | 'ipSets'> = {
  vro: 'workflows',
  vra: 'providers',
  nsx: 'ipSets',
};

/** The read each field makes, as the simulator records it (decoded path). */
export const readPath: Record<UpstreamService, RegExp> = {
  vro: /^\/vco\/api\/workflows\/?$/,
  vra: /^\/catalog-service\/api\/providers$/,
  nsx: /^\/api\/2\.0\/services\/ipset\/scope\/globalroot-0$/,
};

/** A deadline short enough for a fast suite, long enough for the healthy fields beside the faulty one. */
export const shortTimeoutMs = 1000;

/** The faulty upstream's simulator. */
export function simulatorOf(stack: Stack, service: UpstreamService) {
  return stack[service];
}

/** Starts a fresh stack (no breaker state or switch carries over), runs the test, closes it. */
export async function withStack(
  options: StackOptions,
  test: (stack: Stack) => Promise<void>,
): Promise<void> {
  const stack = await startStack({
    ...options,
    // one query may fail three times (retries): the breaker must not join in
    env: { CIRCUIT_FAILURE_THRESHOLD: '1000', ...options.env },
  });
  try {
    await test(stack);
  } finally {
    await stack.close();
  }
}

/** The reads of the faulty field the simulator received. */
export function readsOf(stack: Stack, service: UpstreamService): RecordedRequest[] {
  return simulatorOf(stack, service).requests.filter(
    (r) => r.method === 'GET' && readPath[service].test(r.path),
  );
}

/** The faulty field is null with one error of `code` from `service`; every other field has data. */
export function expectOnlyFieldFailed(
  answer: GraphQLAnswer,
  service: UpstreamService,
  code: string,
): void {
  const field = fieldOf[service];
  expect(answer.status).toBe(200);
  expect(answer.errors).toHaveLength(1);
  const [error] = answer.errors ?? [];
  expect(error?.path).toEqual([field]);
  expect(error?.extensions?.['code']).toBe(code);
  expect((error?.extensions?.['upstream'] as { service?: string } | undefined)?.service).toBe(
    service,
  );
  expect(answer.data?.[field]).toBeNull();
  expectOthersResolved(answer, service);
}

/** Every field but the faulty one's has its data. */
export function expectOthersResolved(answer: GraphQLAnswer, faulty?: UpstreamService): void {
  const data = answer.data;
  for (const [service, field] of Object.entries(fieldOf)) {
    if (service === faulty) continue;
    expect(data?.[field], `${field} resolves`).not.toBeNull();
  }
  const workflows = data?.['workflows'] as { totalCount: number } | null | undefined;
  const providers = data?.['providers'] as { totalCount: number } | null | undefined;
  const ipSets = data?.['ipSets'] as unknown[] | null | undefined;
  if (faulty !== 'vro') expect(workflows?.totalCount).toBeGreaterThan(0);
  if (faulty !== 'vra') expect(providers?.totalCount).toBeGreaterThan(0);
  if (faulty !== 'nsx') expect(ipSets?.length).toBeGreaterThan(0);
}

/** Once the fault is cleared, the same query answers in full: the gateway kept serving. */
export async function expectRecovered(stack: Stack, service: UpstreamService): Promise<void> {
  simulatorOf(stack, service).faults.clear();
  const answer = await stack.gql(acrossUpstreams);
  expect(answer.errors).toBeUndefined();
  expectOthersResolved(answer);
}

interface ReadFaultCase {
  title: string;
  fault: Fault;
  env?: Env;
  code: string;
  /** Attempts the gateway makes at the read (retries included). */
  attempts: number;
}

/** Each fault kind on the one read of `service`, persistent (every attempt gets it). */
export function readFaultCases(): ReadFaultCase[] {
  const timeout = { UPSTREAM_TIMEOUT_MS: String(shortTimeoutMs) };
  return [
    {
      title:
        'a delay beyond UPSTREAM_TIMEOUT_MS is UPSTREAM_TIMEOUT (no retry: the deadline is spent)',
      fault: { kind: 'delay', ms: 60_000 },
      env: timeout,
      code: 'UPSTREAM_TIMEOUT',
      attempts: 1,
    },
    {
      title: 'a slow drip beyond UPSTREAM_TIMEOUT_MS is UPSTREAM_TIMEOUT',
      fault: { kind: 'drip', bytesPerTick: 1, tickMs: 50 },
      env: timeout,
      code: 'UPSTREAM_TIMEOUT',
      attempts: 1,
    },
    {
      title: 'a connection reset is UPSTREAM_UNAVAILABLE after the retries',
      fault: { kind: 'reset' },
      code: 'UPSTREAM_UNAVAILABLE',
      attempts: 3,
    },
    {
      title: 'a reset after the headers is UPSTREAM_UNAVAILABLE after the retries',
      fault: { kind: 'reset-mid-body' },
      code: 'UPSTREAM_UNAVAILABLE',
      attempts: 3,
    },
    {
      // the answer never arrived whole: a transport failure like a reset, not an answer to judge
      title:
        'a truncated body (short of its Content-Length) is UPSTREAM_UNAVAILABLE after the retries',
      fault: { kind: 'truncated' },
      code: 'UPSTREAM_UNAVAILABLE',
      attempts: 3,
    },
    {
      // a complete 200 whose body does not parse: the upstream answered, wrongly; not retried
      title: 'a complete 200 with a malformed body is UPSTREAM_BAD_RESPONSE, not retried',
      fault: { kind: 'malformed' },
      code: 'UPSTREAM_BAD_RESPONSE',
      attempts: 1,
    },
    {
      title: 'a 500 is UPSTREAM_ERROR, not retried',
      fault: { kind: 'status', status: 500, body: '' },
      code: 'UPSTREAM_ERROR',
      attempts: 1,
    },
    ...([502, 503, 504].map((status) => ({
      title: `a ${status} is UPSTREAM_UNAVAILABLE after the retries`,
      fault: { kind: 'status', status, body: '<html>gateway</html>', contentType: 'text/html' },
      code: 'UPSTREAM_UNAVAILABLE',
      attempts: 3,
    })) satisfies ReadFaultCase[]),
  ];
}

/** Point 5's matrix for one upstream: every fault kind on its read, then recovery. */
export function describeReadFaults(service: UpstreamService): void {
  describe.concurrent(
    `a fault on the ${service} read, in a query that needs all three upstreams`,
    () => {
      for (const c of readFaultCases()) {
        it(c.title, () =>
          withStack({ env: { ...c.env } }, async (stack) => {
            simulatorOf(stack, service).faults.inject({
              fault: c.fault,
              method: 'GET',
              path: readPath[service],
            });
            const answer = await stack.gql(acrossUpstreams);
            expectOnlyFieldFailed(answer, service, c.code);
            expect(readsOf(stack, service)).toHaveLength(c.attempts);
            expect(JSON.stringify(answer)).not.toContain(simulatorOf(stack, service).url.host);
            await expectRecovered(stack, service);
          }),
        );
      }

      it('a slow drip that ends within UPSTREAM_TIMEOUT_MS answers the data', () =>
        withStack({}, async (stack) => {
          simulatorOf(stack, service).faults.inject({
            fault: { kind: 'drip', bytesPerTick: 64, tickMs: 2 },
            method: 'GET',
            path: readPath[service],
          });
          const answer = await stack.gql(acrossUpstreams);
          expect(answer.errors).toBeUndefined();
          expectOthersResolved(answer);
          expect(readsOf(stack, service)).toHaveLength(1);
        }));

      it('one reset is absorbed by a retry: the read is made twice and the data comes back', () =>
        withStack({}, async (stack) => {
          simulatorOf(stack, service).faults.inject({
            fault: { kind: 'reset' },
            method: 'GET',
            path: readPath[service],
            times: 1,
          });
          const answer = await stack.gql(acrossUpstreams);
          expect(answer.errors).toBeUndefined();
          expectOthersResolved(answer);
          expect(readsOf(stack, service)).toHaveLength(2);
        }));

      it('with UPSTREAM_RETRIES=0 one reset fails the read at once', () =>
        withStack({ env: { UPSTREAM_RETRIES: '0' } }, async (stack) => {
          simulatorOf(stack, service).faults.inject({
            fault: { kind: 'reset' },
            method: 'GET',
            path: readPath[service],
            times: 1,
          });
          const answer = await stack.gql(acrossUpstreams);
          expectOnlyFieldFailed(answer, service, 'UPSTREAM_UNAVAILABLE');
          expect(readsOf(stack, service)).toHaveLength(1);
          await expectRecovered(stack, service);
        }));
    },
  );
}
