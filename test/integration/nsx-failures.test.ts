import { describe, expect, it } from 'vitest';
import { errorXml } from '../../simulators/nsx/v/index.ts';
import { billionLaughs } from '../helpers/nsx.ts';
import { startStack, type Stack, type StackOptions } from '../helpers/stack.ts';

/** A fresh stack per test: failures must not carry over (circuit breaker, faults). */
async function withStack(
  options: StackOptions,
  test: (stack: Stack) => Promise<void>,
): Promise<void> {
  const stack = await startStack(options);
  try {
    await test(stack);
  } finally {
    await stack.close();
  }
}

function expectNoSecrets(stack: Stack, answer: unknown): void {
  const text = JSON.stringify(answer);
  expect(text).not.toContain(stack.nsx.url.host);
  expect(text).not.toContain(stack.nsx.password);
  expect(text).not.toContain('Basic ');
}

const ipSets = `{ ipSets { id } }`;

describe('NSX error bodies', () => {
  it('takes errorCode and details from the manager error XML', () =>
    withStack({}, async (stack) => {
      stack.nsx.faults.inject({
        fault: { kind: 'status', status: 500, body: errorXml('13100', 'Database <locked> & busy') },
      });
      const answer = await stack.gql<any>(ipSets);
      expect(answer.data?.ipSets).toBeNull();
      expect(answer.errors?.[0]?.extensions).toEqual({
        code: 'UPSTREAM_ERROR',
        upstream: {
          service: 'nsx',
          status: 500,
          code: '13100',
          message: 'Database <locked> & busy',
        },
      });
      expectNoSecrets(stack, answer);
    }));

  it('reads the first error of an <errors> wrapper', () =>
    withStack({}, async (stack) => {
      stack.nsx.faults.inject({
        fault: {
          kind: 'status',
          status: 400,
          body: '<errors><error><details>first</details><errorCode>1</errorCode></error><error><details>second</details><errorCode>2</errorCode></error></errors>',
        },
      });
      const answer = await stack.gql<any>(ipSets);
      expect(answer.errors?.[0]?.extensions?.['upstream']).toEqual({
        service: 'nsx',
        status: 400,
        code: '1',
        message: 'first',
      });
    }));

  it('answers 503 from a proxy with an HTML page as UPSTREAM_UNAVAILABLE, no code, no message', () =>
    withStack({}, async (stack) => {
      stack.nsx.faults.inject({
        fault: {
          kind: 'status',
          status: 503,
          body: '<html><body>down</body></html>',
          contentType: 'text/html',
        },
      });
      const answer = await stack.gql<any>(ipSets);
      expect(answer.errors?.[0]?.extensions).toEqual({
        code: 'UPSTREAM_UNAVAILABLE',
        upstream: { service: 'nsx', status: 503, code: null, message: null },
      });
    }));

  it('answers UNAUTHENTICATED when the manager refuses the credentials', () =>
    withStack(
      { configure: (config) => ({ ...config, nsx: { ...config.nsx, password: 'wrong' } }) },
      async (stack) => {
        const answer = await stack.gql<any>(ipSets);
        expect(answer.errors?.[0]?.extensions).toMatchObject({
          code: 'UNAUTHENTICATED',
          upstream: { service: 'nsx', status: 401 },
        });
        expectNoSecrets(stack, answer);
        expect(JSON.stringify(answer)).not.toContain('wrong');
      },
    ));

  it('fails only the fields that need the failing call', () =>
    withStack({}, async (stack) => {
      stack.nsx.faults.inject({ fault: { kind: 'status', status: 500 }, path: /\/ipset\// });
      const answer = await stack.gql<any>(`{ ipSets { id } services { id } }`);
      expect(answer.data?.ipSets).toBeNull();
      expect(answer.data?.services).toHaveLength(5);
      expect(answer.errors).toHaveLength(1);
    }));
});

describe('bodies that are not what the manager documents', () => {
  it('answers UPSTREAM_BAD_RESPONSE for malformed XML', () =>
    withStack({}, async (stack) => {
      stack.nsx.faults.inject({ fault: { kind: 'malformed' }, path: /\/ipset\// });
      // the firewall's answer cut short, with its ETag
      stack.nsx.faults.inject({
        fault: {
          kind: 'status',
          status: 200,
          body: '<VshieldAppConfiguration><firewallConfiguration contextId="dvportgroup-63"><layer3Sect',
          headers: { etag: '"1312802020950"' },
        },
        path: /\/app\/firewall\//,
      });
      const answer = await stack.gql<any>(
        `{ ipSets { id } applicationFirewall(portGroupId: "dvportgroup-63") { generationNumber } }`,
      );
      expect(answer.data).toEqual({ ipSets: null, applicationFirewall: null });
      for (const error of answer.errors ?? []) {
        expect(error.extensions).toMatchObject({
          code: 'UPSTREAM_BAD_RESPONSE',
          upstream: { service: 'nsx', status: 200, code: null, message: null },
        });
      }
      expect(answer.errors).toHaveLength(2);
    }));

  it('refuses a billion-laughs body without expanding it, and keeps serving', () =>
    withStack({}, async (stack) => {
      stack.nsx.faults.inject({
        fault: { kind: 'status', status: 200, body: billionLaughs },
        method: 'GET',
      });
      const answer = await stack.gql<any>(`{ ipSets { id name } ipSet(id: "ipset-3") { name } }`);
      expect(answer.data).toEqual({ ipSets: null, ipSet: null });
      expect(answer.errors?.map((e) => e.extensions?.['code'])).toEqual([
        'UPSTREAM_BAD_RESPONSE',
        'UPSTREAM_BAD_RESPONSE',
      ]);
      expect(answer.errors?.[0]?.message).toContain('DOCTYPE');
      stack.nsx.faults.clear();
      const after = await stack.gql<any>(`{ ipSet(id: "ipset-3") { name } }`);
      expect(after.data).toEqual({ ipSet: { name: 'IPSET-2' } });
    }));

  it('answers UPSTREAM_BAD_RESPONSE for XML of the wrong shape', () =>
    withStack({}, async (stack) => {
      stack.nsx.faults.inject({
        fault: {
          kind: 'status',
          status: 200,
          body: '<list><ipset><name>no id</name></ipset></list>',
        },
      });
      const answer = await stack.gql<any>(ipSets);
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_BAD_RESPONSE');
      expect(answer.errors?.[0]?.message).toContain('without <objectId>');
    }));

  it('answers UPSTREAM_BAD_RESPONSE for a firewall answer without ETag', () =>
    withStack({}, async (stack) => {
      stack.nsx.faults.inject({
        fault: {
          kind: 'status',
          status: 200,
          body: '<VshieldAppConfiguration><firewallConfiguration contextId="dvportgroup-63"/></VshieldAppConfiguration>',
        },
        method: 'GET',
      });
      const answer = await stack.gql<any>(
        `{ applicationFirewall(portGroupId: "dvportgroup-63") { generationNumber } }`,
      );
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_BAD_RESPONSE');
      expect(answer.errors?.[0]?.message).toContain('without ETag');
    }));
});

describe('a manager that does not answer', () => {
  it('answers UPSTREAM_TIMEOUT after UPSTREAM_TIMEOUT_MS', () =>
    withStack({ env: { UPSTREAM_TIMEOUT_MS: '150' } }, async (stack) => {
      stack.nsx.faults.inject({ fault: { kind: 'delay', ms: 1000 } });
      const answer = await stack.gql<any>(
        `mutation { forceSyncEdge(edgeId: "edge-1") { accepted } }`,
      );
      expect(answer.errors?.[0]?.extensions).toEqual({
        code: 'UPSTREAM_TIMEOUT',
        upstream: { service: 'nsx', status: null, code: null, message: null },
      });
    }));

  it('answers UPSTREAM_UNAVAILABLE when the connection is refused', () =>
    withStack({}, async (stack) => {
      await stack.nsx.close();
      const answer = await stack.gql<any>(`{ ipSet(id: "ipset-3") { id } }`);
      expect(answer.data).toEqual({ ipSet: null });
      expect(answer.errors?.[0]?.extensions).toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        upstream: { service: 'nsx', status: null },
      });
      expectNoSecrets(stack, answer);
    }));
});
