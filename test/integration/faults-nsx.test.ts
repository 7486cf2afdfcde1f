import { describe, expect, it } from 'vitest';
import type { Fault } from '../../simulators/faults.ts';
import { describeReadFaults, shortTimeoutMs, withStack } from '../helpers/faults.ts';

describeReadFaults('nsx');

const create = `mutation ($input: IpSetInput!) { createIpSet(input: $input) { id name } }`;
const creates = /^\/api\/2\.0\/services\/ipset\/globalroot-0$/;

describe.concurrent('a fault on createIpSet (a POST: never retried)', () => {
  it.each<[string, Fault, string]>([
    ['a reset', { kind: 'reset' }, 'UPSTREAM_UNAVAILABLE'],
    ['a reset after the headers', { kind: 'reset-mid-body' }, 'UPSTREAM_UNAVAILABLE'],
    ['a 504', { kind: 'status', status: 504, body: '' }, 'UPSTREAM_UNAVAILABLE'],
    ['a 500', { kind: 'status', status: 500, body: '' }, 'UPSTREAM_ERROR'],
    ['a delay beyond the deadline', { kind: 'delay', ms: 60_000 }, 'UPSTREAM_TIMEOUT'],
  ])(
    '%s fails the mutation with its code after one POST, and the next one works',
    (_, fault, code) =>
      withStack({ env: { UPSTREAM_TIMEOUT_MS: String(shortTimeoutMs) } }, async (stack) => {
        stack.nsx.faults.inject({ fault, method: 'POST', path: creates });
        const answer = await stack.gql(create, {
          input: { name: 'fault-1', addresses: ['10.0.0.1'] },
        });
        expect(answer.status).toBe(200);
        expect(answer.data).toBeNull();
        expect(answer.errors?.[0]?.path).toEqual(['createIpSet']);
        expect(answer.errors?.[0]?.extensions?.['code']).toBe(code);
        const posts = () => stack.nsx.requests.filter((r) => r.method === 'POST');
        expect(posts()).toHaveLength(1);
        stack.nsx.faults.clear();
        const again = await stack.gql(create, {
          input: { name: 'fault-2', addresses: ['10.0.0.2'] },
        });
        expect(again.errors).toBeUndefined();
        expect(again.data?.['createIpSet']?.name).toBe('fault-2');
        expect(posts()).toHaveLength(2);
      }),
  );

  it('a malformed answer to the create is UPSTREAM_BAD_RESPONSE', () =>
    withStack({}, async (stack) => {
      stack.nsx.faults.inject({ fault: { kind: 'malformed' }, method: 'POST', path: creates });
      const answer = await stack.gql(create, {
        input: { name: 'fault-3', addresses: ['10.0.0.3'] },
      });
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_BAD_RESPONSE');
    }));
});
