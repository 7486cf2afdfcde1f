import { afterEach, describe, expect, it } from 'vitest';
import { startStack, type Stack, type StackOptions } from '../helpers/stack.ts';
import {
  catalogItemsPath,
  expectNoSecrets,
  firstError,
  providerListCalls,
  providersPath,
} from '../helpers/vra.ts';
import { vraErrorBody } from '../../simulators/vra/v7/vra-errors.ts';

let stack: Stack | undefined;
async function start(options: StackOptions = {}): Promise<Stack> {
  stack = await startStack({ ...options, vra: { password: 'pa55-W0rd-failures', ...options.vra } });
  return stack;
}
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const both = `{
  providers(first: 3) { totalCount nodes { name } }
  catalogItems(first: 3) { totalCount nodes { name } }
}`;

describe('vRA failures', () => {
  it('answers UPSTREAM_TIMEOUT for a call slower than UPSTREAM_TIMEOUT_MS, and the other field still answers', async () => {
    const { vra, gql } = await start({ env: { UPSTREAM_TIMEOUT_MS: '300' } });
    vra.faults.inject({ path: providersPath, fault: { kind: 'delay', ms: 5_000 } });
    const answer = await gql<any>(both);
    expect(answer.data?.providers).toBeNull();
    expect(answer.data?.catalogItems.totalCount).toBe(vra.catalogItems.length);
    expect(firstError(answer)).toMatchObject({
      path: ['providers'],
      extensions: { code: 'UPSTREAM_TIMEOUT', upstream: { service: 'vra', status: null } },
    });
    expectNoSecrets(answer, vra);
  });

  it('answers UPSTREAM_TIMEOUT when the token request is too slow', async () => {
    const { vra, gql } = await start({ env: { UPSTREAM_TIMEOUT_MS: '300' } });
    vra.faults.inject({ path: '/identity/api/tokens', fault: { kind: 'delay', ms: 5_000 } });
    const answer = await gql<any>(both);
    expect(answer.errors?.map((e) => e.extensions?.['code'])).toEqual([
      'UPSTREAM_TIMEOUT',
      'UPSTREAM_TIMEOUT',
    ]);
    expect(providerListCalls(vra)).toHaveLength(0);
  });

  it('answers UPSTREAM_UNAVAILABLE when vRA refuses connections', async () => {
    const { vra, gql } = await start();
    expect((await gql<any>(both)).errors).toBeUndefined();
    await vra.close();
    const answer = await gql<any>(both);
    expect(answer.data).toEqual({ providers: null, catalogItems: null });
    for (const error of answer.errors ?? []) {
      expect(error.extensions).toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        upstream: { service: 'vra' },
      });
    }
    expect(answer.errors).toHaveLength(2);
    expectNoSecrets(answer, vra);
  });

  it('answers UPSTREAM_BAD_RESPONSE for malformed JSON', async () => {
    const { vra, gql } = await start();
    vra.faults.inject({ path: catalogItemsPath, fault: { kind: 'malformed' }, times: 1 });
    const answer = await gql<any>(both);
    expect(answer.data?.catalogItems).toBeNull();
    expect(answer.data?.providers.totalCount).toBe(vra.providers.length);
    expect(firstError(answer).extensions).toMatchObject({
      code: 'UPSTREAM_BAD_RESPONSE',
      upstream: { service: 'vra', status: 200 },
    });
  });

  it('answers UPSTREAM_BAD_RESPONSE for a list without metadata', async () => {
    const { vra, gql } = await start();
    vra.faults.inject({
      path: providersPath,
      fault: { kind: 'status', status: 200, body: { content: [] } },
      times: 1,
    });
    const answer = await gql<any>('{ providers { totalCount } }');
    expect(firstError(answer).extensions?.['code']).toBe('UPSTREAM_BAD_RESPONSE');
  });

  it('answers UPSTREAM_ERROR with the vRA code and message for a 500', async () => {
    const { vra, gql } = await start();
    vra.faults.inject({
      path: providersPath,
      fault: {
        kind: 'status',
        status: 500,
        body: vraErrorBody(50505, 'System exception.', 'NullPointerException at Foo.java:12'),
      },
      times: 1,
    });
    const answer = await gql<any>('{ providers { totalCount } }');
    expect(firstError(answer).extensions).toEqual({
      code: 'UPSTREAM_ERROR',
      upstream: { service: 'vra', status: 500, code: '50505', message: 'System exception.' },
    });
    expect(JSON.stringify(answer)).not.toContain('NullPointerException');
  });

  it('answers UPSTREAM_UNAVAILABLE for a 503 that lasts through the retries of the read', async () => {
    const { vra, gql } = await start();
    vra.faults.inject({
      path: catalogItemsPath,
      fault: { kind: 'status', status: 503, body: 'Service Unavailable' },
      times: 10,
    });
    const answer = await gql<any>('{ catalogItems { totalCount } }');
    expect(firstError(answer).extensions).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      upstream: { service: 'vra', status: 503, code: null, message: null },
    });
    expect(vra.requestsTo('GET', catalogItemsPath).length).toBeGreaterThan(1);
  });

  it('answers a 404 on the provider list as NOT_FOUND on the field, and a by-id 404 as null', async () => {
    const { vra, gql } = await start();
    vra.faults.inject({
      path: providersPath,
      fault: { kind: 'status', status: 404, body: vraErrorBody(20111, 'Not found.', null) },
      times: 1,
    });
    const answer = await gql<any>(
      '{ providers { totalCount } provider(id: "00000000-0000-4000-8000-000000000000") { id } }',
    );
    expect(answer.data).toEqual({ providers: null, provider: null });
    expect(answer.errors).toHaveLength(1);
    expect(firstError(answer)).toMatchObject({
      path: ['providers'],
      extensions: { code: 'NOT_FOUND', upstream: { code: '20111' } },
    });
  });

  it('fails the provider of every item, but not the items, when the provider lookup fails', async () => {
    const { vra, gql } = await start();
    vra.faults.inject({
      path: providersPath,
      fault: { kind: 'status', status: 500, body: vraErrorBody(50505, 'System exception.', null) },
      times: 1,
    });
    const answer = await gql<any>(
      '{ catalogItems(first: 2) { nodes { name provider { name } } } }',
    );
    expect(answer.data?.catalogItems.nodes).toEqual([
      { name: vra.catalogItems[0]!.name, provider: null },
      { name: vra.catalogItems[1]!.name, provider: null },
    ]);
    expect(answer.errors?.map((e) => e.extensions?.['code'])).toEqual([
      'UPSTREAM_ERROR',
      'UPSTREAM_ERROR',
    ]);
    expect(providerListCalls(vra)).toHaveLength(1);
  });
});
