import { afterEach, describe, expect, it } from 'vitest';
import { epochSeconds, signingKey, signJwt, startJwksServer } from '../helpers/jwks.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
const subscription = `subscription($w: ID!, $e: ID!) {
  workflowExecution(workflowId: $w, executionId: $e) { id state }
}`;

interface Served {
  stack: Stack;
  url: string;
  subscribe(executionId: string, headers?: Record<string, string>): Promise<SseSubscription>;
  start(): Promise<string>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(env: Record<string, string>): Promise<Served> {
  const stack = await startStack({ env, vro: { manualClock: true, stepMs: 1000 } });
  const server = await listen(stack.gateway);
  const opened: SseSubscription[] = [];
  cleanups.push(async () => {
    for (const s of opened) s.close();
    await server.close();
    await stack.close();
  });
  const token = env['GATEWAY_TOKENS']?.split(',')[0];
  const auth: Record<string, string> =
    token === undefined ? {} : { authorization: `Bearer ${token}` };
  return {
    stack,
    url: server.url,
    async subscribe(executionId, headers = auth) {
      const s = await SseSubscription.open(
        server.url,
        subscription,
        { w: echo, e: executionId },
        headers,
      );
      opened.push(s);
      return s;
    },
    async start() {
      const answer = await stack.gql<any>(
        'mutation($w: ID!) { runWorkflow(workflowId: $w) { execution { id } } }',
        { w: echo },
        auth,
      );
      expect(answer.errors).toBeUndefined();
      return answer.data?.runWorkflow.execution.id as string;
    },
  };
}

const pollsOf = (stack: Stack, executionId: string) =>
  stack.vro.requests.filter(
    (r) => r.method === 'GET' && r.rawPath.endsWith(`/executions/${executionId}/`),
  );

/** Opens a subscription and reads its first event: it is running. */
async function running(served: Served, executionId: string, headers?: Record<string, string>) {
  const s = await served.subscribe(executionId, headers);
  expect(s.status).toBe(200);
  expect((await s.next())?.data.data.workflowExecution.id).toBe(executionId);
  return s;
}

/** Opens subscriptions until one is refused, answering how many ran; at most 10 tries. */
async function openUntilRefused(
  served: Served,
  executionId: string,
  headers?: Record<string, string>,
) {
  for (let opened = 0; opened < 10; opened += 1) {
    const s = await served.subscribe(executionId, headers);
    if (s.status !== 200) return opened;
    await s.next();
  }
  return 10;
}

describe('MAX_SUBSCRIPTIONS_PER_CLIENT', () => {
  it('refuses a client’s subscription over the cap with 429 and GRAPHQL_VALIDATION_FAILED, before any upstream call', async () => {
    const served = await serve({ MAX_SUBSCRIPTIONS_PER_CLIENT: '2' });
    const [first, second, third] = [
      await served.start(),
      await served.start(),
      await served.start(),
    ];
    await running(served, first);
    await running(served, second);

    const polled = pollsOf(served.stack, third).length;
    const refused = await served.subscribe(third);
    expect(refused.status).toBe(429);
    // Over SSE the refusal is also the stream's one event, then it completes.
    const event = await refused.next();
    expect(event?.data.data ?? null).toBeNull();
    expect(event?.data.errors).toHaveLength(1);
    const [error] = event?.data.errors as Array<{ message: string; extensions: { code: string } }>;
    expect(error?.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(error?.message).toContain('already has 2 open subscriptions');
    expect(error?.message).toContain('MAX_SUBSCRIPTIONS_PER_CLIENT');
    expect((await refused.next())?.event).toBe('complete');
    expect(pollsOf(served.stack, third)).toHaveLength(polled);

    // Queries and mutations are not subscriptions: they still run.
    const query = await served.stack.gql<any>('{ workflows(first: 1) { totalCount } }');
    expect(query.errors).toBeUndefined();
  });

  it('frees a place when a subscription completes, and when its client goes away', async () => {
    const served = await serve({ MAX_SUBSCRIPTIONS_PER_CLIENT: '2' });
    const [first, second, third] = [
      await served.start(),
      await served.start(),
      await served.start(),
    ];
    const completing = [await running(served, first), await running(served, second)];
    expect((await served.subscribe(third)).status).toBe(429);

    // Both runs finish: their subscriptions complete and free their places.
    served.stack.vro.advance(60_000);
    for (const s of completing) {
      let event = await s.next();
      while (event !== null && event.event !== 'complete') event = await s.next();
    }
    // The clock moved on: the runs started from here on are still running.
    const [fourth, fifth, sixth] = [
      await served.start(),
      await served.start(),
      await served.start(),
    ];
    await running(served, fourth);
    const leaving = await running(served, fifth);
    expect((await served.subscribe(sixth)).status).toBe(429);

    // The fifth's client leaves: its place is free as soon as the gateway sees it.
    leaving.close();
    let reopened: SseSubscription | undefined;
    for (let tries = 0; tries < 100; tries += 1) {
      reopened = await served.subscribe(sixth);
      if (reopened.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(reopened?.status).toBe(200);
    expect((await served.subscribe(sixth)).status).toBe(429);
  });

  it('counts per gateway token when GATEWAY_TOKENS is set: another token has places of its own', async () => {
    const served = await serve({
      MAX_SUBSCRIPTIONS_PER_CLIENT: '1',
      GATEWAY_TOKENS: 'front-a,front-b',
    });
    const id = await served.start();
    const a = { authorization: 'Bearer front-a' };
    const b = { authorization: 'Bearer front-b' };
    expect(await openUntilRefused(served, id, a)).toBe(1);
    expect(await openUntilRefused(served, id, b)).toBe(1);
  });

  it('counts per caller, not per credential: fresh JWTs of one subject share its places, another subject has its own', async () => {
    const key = await signingKey('ES256', 'k1');
    const jwks = await startJwksServer([key.jwk]);
    cleanups.push(() => jwks.close());
    const issuer = 'https://idp.example/realms/vmw';
    const served = await serve({
      MAX_SUBSCRIPTIONS_PER_CLIENT: '1',
      GATEWAY_TOKENS: 'front-a',
      JWT_JWKS_URL: jwks.url,
      JWT_ISSUER: issuer,
      JWT_AUDIENCE: 'vmw-graphql-gateway',
    });
    const id = await served.start();
    const jwtOf = async (sub: string, nonce: number) => ({
      authorization: `Bearer ${await signJwt(
        key.privateKey,
        { alg: key.alg, kid: key.kid },
        {
          iss: issuer,
          aud: 'vmw-graphql-gateway',
          sub,
          preferred_username: sub,
          scope: 'read',
          iat: epochSeconds() - nonce,
          exp: epochSeconds() + 600,
        },
      )}`,
    });
    expect((await served.subscribe(id, await jwtOf('alice', 0))).status).toBe(200);
    // The same person with a credential of a different text: still one caller.
    expect((await served.subscribe(id, await jwtOf('alice', 5))).status).toBe(429);
    expect((await served.subscribe(id, await jwtOf('bob', 0))).status).toBe(200);
  });

  it('counts per address otherwise', async () => {
    const served = await serve({ MAX_SUBSCRIPTIONS_PER_CLIENT: '3' });
    const id = await served.start();
    expect(await openUntilRefused(served, id)).toBe(3);
  });

  it('counts per forwarded client address behind a trusted proxy (TRUSTED_PROXIES)', async () => {
    const served = await serve({ MAX_SUBSCRIPTIONS_PER_CLIENT: '1', TRUSTED_PROXIES: '127.0.0.1' });
    const id = await served.start();
    expect(await openUntilRefused(served, id, { 'x-forwarded-for': '198.51.100.1' })).toBe(1);
    expect(await openUntilRefused(served, id, { 'x-forwarded-for': '198.51.100.2' })).toBe(1);
  });

  it('does not believe X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const served = await serve({ MAX_SUBSCRIPTIONS_PER_CLIENT: '2' });
    const id = await served.start();
    let opened = 0;
    for (let i = 0; i < 4; i += 1) {
      const s = await served.subscribe(id, { 'x-forwarded-for': `203.0.113.${i}` });
      if (s.status !== 200) break;
      await s.next();
      opened += 1;
    }
    expect(opened).toBe(2);
  });
});
