import { describe, expect, it } from 'vitest';
import type { Fault } from '../../simulators/faults.ts';
import {
  acrossUpstreams,
  describeReadFaults,
  expectOnlyFieldFailed,
  expectRecovered,
  shortTimeoutMs,
  withStack,
} from '../helpers/faults.ts';
import { iaasProvider, tokensPath } from '../helpers/vra.ts';

describeReadFaults('vra');

const register = `mutation ($input: RegisterCatalogItemInput!) {
  registerCatalogItem(input: $input) { catalogItem { id name } }
}`;

const input = (providerId: string) => ({
  providerId,
  bindingId: 'f4017a11-0000-4000-8000-00000000fa17',
  name: 'Fault test',
  description: '',
  iconId: 'icon.png',
  catalogItemTypeId: 'com.vmware.csp.iaas.blueprint.service.machine',
  outputResourceTypeId: 'Infrastructure.Virtual',
  organization: { tenantRef: 'vsphere.local', tenantLabel: 'vsphere.local' },
});

describe.concurrent('a fault on registerCatalogItem (a PUT: never retried)', () => {
  it.each<[string, Fault, string]>([
    ['a reset', { kind: 'reset' }, 'UPSTREAM_UNAVAILABLE'],
    ['a 503', { kind: 'status', status: 503, body: '' }, 'UPSTREAM_UNAVAILABLE'],
    ['a reset after the headers', { kind: 'reset-mid-body' }, 'UPSTREAM_UNAVAILABLE'],
    ['a delay beyond the deadline', { kind: 'delay', ms: 60_000 }, 'UPSTREAM_TIMEOUT'],
  ])(
    '%s fails the mutation with its code after one PUT, and the next one works',
    (_, fault, code) =>
      withStack({ env: { UPSTREAM_TIMEOUT_MS: String(shortTimeoutMs) } }, async (stack) => {
        const providerId = iaasProvider(stack.vra).id;
        stack.vra.faults.inject({ fault, method: 'PUT' });
        const answer = await stack.gql(register, { input: input(providerId) });
        expect(answer.status).toBe(200);
        expect(answer.data).toBeNull();
        expect(answer.errors?.[0]?.extensions?.['code']).toBe(code);
        const puts = () => stack.vra.requests.filter((r) => r.method === 'PUT');
        expect(puts()).toHaveLength(1);
        stack.vra.faults.clear();
        const again = await stack.gql(register, { input: input(providerId) });
        expect(again.errors).toBeUndefined();
        expect(puts()).toHaveLength(2);
      }),
  );
});

describe.concurrent('a fault on the token request (a POST: never retried)', () => {
  it('fails only the vRA field, once, and the next query obtains a token', () =>
    withStack({}, async (stack) => {
      stack.vra.faults.inject({ fault: { kind: 'reset' }, method: 'POST', path: /tokens$/ });
      const answer = await stack.gql(acrossUpstreams);
      expectOnlyFieldFailed(answer, 'vra', 'UPSTREAM_UNAVAILABLE');
      expect(stack.vra.requestsTo('POST', tokensPath)).toHaveLength(1);
      await expectRecovered(stack, 'vra');
      expect(stack.vra.requestsTo('POST', tokensPath)).toHaveLength(2);
    }));

  it('a malformed token answer is UPSTREAM_BAD_RESPONSE', () =>
    withStack({}, async (stack) => {
      stack.vra.faults.inject({ fault: { kind: 'malformed' }, method: 'POST', path: /tokens$/ });
      const answer = await stack.gql(acrossUpstreams);
      expectOnlyFieldFailed(answer, 'vra', 'UPSTREAM_BAD_RESPONSE');
      await expectRecovered(stack, 'vra');
    }));
});
