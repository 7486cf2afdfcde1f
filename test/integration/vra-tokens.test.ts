import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startStack, type Stack, type StackOptions } from '../helpers/stack.ts';
import {
  bearerOf,
  catalogCalls,
  expectNoSecrets,
  firstError,
  providerListCalls,
  providersPath,
  tokenRequests,
} from '../helpers/vra.ts';
import { vraErrorBody } from '../../simulators/vra/v7/vra-errors.ts';

const password = 'pa55-W0rd-tokens';
const query = '{ providers(first: 2) { totalCount } }';
let stack: Stack | undefined;

async function start(options: StackOptions = {}): Promise<Stack> {
  stack = await startStack({ ...options, vra: { password, ...options.vra } });
  return stack;
}
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('vRA tokens', () => {
  it('asks for a token only when a catalog call needs one, with the configured credentials', async () => {
    const { vra, gql } = await start();
    await gql<any>('{ __typename }');
    expect(vra.requests).toHaveLength(0);
    const answer = await gql<any>(query);
    expect(answer.errors).toBeUndefined();
    const [login] = tokenRequests(vra);
    expect(tokenRequests(vra)).toHaveLength(1);
    expect(JSON.parse(login!.body.toString('utf8'))).toEqual({
      username: vra.username,
      password,
      tenant: vra.tenant,
    });
    expect(login?.headers.accept).toBe('application/json');
    expect(login?.headers['content-type']).toBe('application/json');
    expect(login?.headers.authorization).toBeUndefined();
  });

  it('sends the token as a bearer with Accept: application/json on every catalog call', async () => {
    const { vra, gql } = await start();
    const answer = await gql<any>(`{
      catalogItems(first: 3) { nodes { provider { name } } }
      provider(id: "6c1f4cc9-4806-4337-899e-50da870b3ed9") { id }
      providerByName(name: "Blueprint Service") { id }
    }`);
    expect(answer.errors).toBeUndefined();
    const calls = catalogCalls(vra);
    expect(calls.map((r) => r.path)).toEqual(
      expect.arrayContaining([
        '/catalog-service/api/catalogItems',
        '/catalog-service/api/providers',
        '/catalog-service/api/providers/6c1f4cc9-4806-4337-899e-50da870b3ed9',
      ]),
    );
    for (const call of calls) {
      expect(bearerOf(call)).toBe(vra.issuedTokens()[0]);
      expect(call.headers.accept).toBe('application/json');
    }
  });

  it('makes one token request for 50 concurrent operations', async () => {
    const { vra, gql } = await start();
    const answers = await Promise.all(Array.from({ length: 50 }, () => gql<any>(query)));
    expect(answers.every((a) => a.errors === undefined)).toBe(true);
    expect(tokenRequests(vra)).toHaveLength(1);
    expect(providerListCalls(vra)).toHaveLength(50);
  });

  it('obtains a new token once on a 401 and retries the call with it', async () => {
    const { vra, gql } = await start();
    await gql<any>(query);
    vra.expireAllTokens();
    const before = vra.requests.length;
    const answer = await gql<any>(query);
    expect(answer.errors).toBeUndefined();
    const [old, renewed] = vra.issuedTokens();
    const sequence = vra.requests.slice(before);
    expect(sequence.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${providersPath}`,
      'POST /identity/api/tokens',
      `GET ${providersPath}`,
    ]);
    expect(bearerOf(sequence[0])).toBe(old);
    expect(bearerOf(sequence[2])).toBe(renewed);
  });

  it('makes one token request when 50 concurrent calls get 401 with the same expired token', async () => {
    const { vra, gql } = await start();
    await gql<any>(query);
    vra.expireAllTokens();
    const answers = await Promise.all(Array.from({ length: 50 }, () => gql<any>(query)));
    expect(answers.filter((a) => a.errors !== undefined)).toEqual([]);
    expect(tokenRequests(vra)).toHaveLength(2);
  });

  it('retries once only: a second 401 is UNAUTHENTICATED with the vRA error', async () => {
    const { vra, gql } = await start();
    vra.faults.inject({
      path: providersPath,
      fault: {
        kind: 'status',
        status: 401,
        body: vraErrorBody(90135, 'Unable to authenticate user.', null),
      },
      times: 2,
    });
    const answer = await gql<any>(query);
    expect(firstError(answer).extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      upstream: {
        service: 'vra',
        status: 401,
        code: '90135',
        message: 'Unable to authenticate user.',
      },
    });
    expect(providerListCalls(vra)).toHaveLength(2);
    expect(tokenRequests(vra)).toHaveLength(2);
    expectNoSecrets(answer, vra);
  });

  it('renews a token from its expires date before use, without waiting for a 401', async () => {
    const { vra, gql } = await start({ vra: { tokenLifetimeMs: 800 } });
    await gql<any>(query);
    await sleep(900);
    const answer = await gql<any>(query);
    expect(answer.errors).toBeUndefined();
    const [first, second] = vra.issuedTokens();
    expect(tokenRequests(vra)).toHaveLength(2);
    expect(providerListCalls(vra).map(bearerOf)).toEqual([first, second]);
  });

  it.each([
    ['password', { password: 'not-the-password' }],
    ['tenant', { tenant: 'q' }],
  ])(
    'answers UNAUTHENTICATED with the vRA login error for a wrong %s, and makes no catalog call',
    async (_what, wrong) => {
      const { vra, gql } = await start({
        configure: (config) => ({ ...config, vra: { ...config.vra, ...wrong } }),
      });
      const answer = await gql<any>(query);
      const error = firstError(answer);
      expect(error.extensions?.['code']).toBe('UNAUTHENTICATED');
      const upstream = error.extensions?.['upstream'] as Record<string, unknown>;
      expect(upstream).toMatchObject({ service: 'vra', status: 401, code: '90135' });
      expect(upstream['message']).toMatch(/^Unable to authenticate user /);
      expect(JSON.stringify(answer)).not.toContain('not-the-password');
      expect(JSON.stringify(answer)).not.toContain('90135-');
      expect(catalogCalls(vra)).toHaveLength(0);
      expectNoSecrets(answer, vra);
    },
  );

  it('does not cache a failed login: the next operation tries again', async () => {
    const { vra, gql } = await start();
    vra.faults.inject({
      path: '/identity/api/tokens',
      fault: { kind: 'status', status: 503, body: vraErrorBody(50505, 'System exception.', null) },
      times: 1,
    });
    expect(firstError(await gql<any>(query)).extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    expect((await gql<any>(query)).errors).toBeUndefined();
    expect(tokenRequests(vra)).toHaveLength(2);
  });

  it('answers UNAUTHENTICATED without any call when no vRA credentials are configured', async () => {
    const { vra, gql } = await start({
      configure: (config) => ({ ...config, vra: { ...config.vra, username: undefined } }),
    });
    const answer = await gql<any>(query);
    const error = firstError(answer);
    expect(error.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(error.message).toContain('VRA_USERNAME');
    expect(vra.requests).toHaveLength(0);
  });
});
