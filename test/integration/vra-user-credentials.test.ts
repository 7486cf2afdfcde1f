import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamStatusError } from '../../src/errors.ts';
import type { CallContext } from '../../src/http/upstream-http.ts';
import { startStack, type Stack } from '../helpers/stack.ts';
import { bearerOf, providerListCalls, tokenRequests } from '../helpers/vra.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const call = (vra: string): CallContext => ({
  signal: new AbortController().signal,
  requestId: 'user-credentials-test',
  credentials: { vra },
});

async function userToken(): Promise<string> {
  const answer = await fetch(new URL('/identity/api/tokens', stack.vra.url), {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({
      username: stack.vra.username,
      password: stack.vra.password,
      tenant: stack.vra.tenant,
    }),
  });
  return ((await answer.json()) as { id: string }).id;
}

describe('the vRA client with a user bearer on the call', () => {
  it('sends the user bearer as is and asks for no service token', async () => {
    const token = await userToken();
    const before = tokenRequests(stack.vra).length;
    const page = await stack.gateway.clients.vra.listProviders(call(`Bearer ${token}`), {
      page: 1,
      limit: 2,
    });
    expect(page.content).toHaveLength(2);
    expect(bearerOf(providerListCalls(stack.vra).at(-1))).toBe(token);
    expect(tokenRequests(stack.vra)).toHaveLength(before);
  });

  it('answers a rejected user bearer with 401 at once: it cannot be renewed', async () => {
    const before = stack.vra.requests.length;
    const failure = await stack.gateway.clients.vra
      .listProviders(call('Bearer revoked-or-unknown'), { page: 1, limit: 2 })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamStatusError);
    expect((failure as UpstreamStatusError).extensions['code']).toBe('UNAUTHENTICATED');
    expect(stack.vra.requests.slice(before).map((r) => r.path)).toEqual([
      '/catalog-service/api/providers',
    ]);
  });
});
