import { describe, expect, it } from 'vitest';
import type { Fault } from '../../simulators/faults.ts';
import {
  acrossUpstreams,
  describeReadFaults,
  expectOthersResolved,
  shortTimeoutMs,
  withStack,
} from '../helpers/faults.ts';

describeReadFaults('vro');

const noop = '3eabedcb-baa8-4dd4-88bd-64072bcfbe01';
const run = `mutation { runWorkflow(workflowId: "${noop}", inputs: []) { execution { id state } } }`;
const starts = /^\/vco\/api\/workflows\/[^/]+\/executions\/?$/;

describe.concurrent('a fault on runWorkflow (a POST: never retried)', () => {
  it.each<[string, Fault, string]>([
    ['a reset', { kind: 'reset' }, 'UPSTREAM_UNAVAILABLE'],
    ['a 503', { kind: 'status', status: 503, body: '' }, 'UPSTREAM_UNAVAILABLE'],
    ['a 500', { kind: 'status', status: 500, body: '' }, 'UPSTREAM_ERROR'],
    ['a delay beyond the deadline', { kind: 'delay', ms: 60_000 }, 'UPSTREAM_TIMEOUT'],
  ])(
    '%s fails the mutation with its code after one POST, and the next run works',
    (_, fault, code) =>
      withStack({ env: { UPSTREAM_TIMEOUT_MS: String(shortTimeoutMs) } }, async (stack) => {
        stack.vro.faults.inject({ fault, method: 'POST', path: starts });
        const answer = await stack.gql(run);
        expect(answer.status).toBe(200);
        expect(answer.data).toBeNull();
        expect(answer.errors?.[0]?.path).toEqual(['runWorkflow']);
        expect(answer.errors?.[0]?.extensions?.['code']).toBe(code);
        const posts = () => stack.vro.requests.filter((r) => r.method === 'POST');
        expect(posts()).toHaveLength(1);
        stack.vro.faults.clear();
        const again = await stack.gql(run);
        expect(again.errors).toBeUndefined();
        expect(again.data?.['runWorkflow']?.execution.state).toBeTypeOf('string');
        expect(posts()).toHaveLength(2);
        expectOthersResolved((await stack.gql(acrossUpstreams)) as never);
      }),
  );
});
