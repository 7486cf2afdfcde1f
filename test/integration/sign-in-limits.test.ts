import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.ts';
import { SseSubscription, type SseEvent } from '../helpers/sse.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';
import { tokenRequests } from '../helpers/vra.ts';

// Sign-in limits under attack: attempts sent side by side (in parallel, in one
// batch) and through every transport, against one user name (5) or from one
// client address (20). What counts is what vRA received.

const signInMutation = `mutation($u: String!, $p: String!) {
  signIn(username: $u, password: $p) { name via }
}`;
const tokenHeader = 'x-graphql-event-stream-token';

let stack: Stack;
const logLines: string[] = [];
let server: Awaited<ReturnType<typeof listen>>;
let endpoint: string;

beforeAll(async () => {
  // The test's client plays a reverse proxy on loopback: each attack comes "from" its own address.
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  stack = await startStack({
    env: { TRUSTED_PROXIES: '127.0.0.1' },
    logger: createLogger('info', sink),
  });
  server = await listen(stack.gateway);
  endpoint = `${server.url}/graphql`;
});
afterAll(async () => {
  await server.close();
  await stack.close();
});

/** The user names of the sign-ins vRA received (the service account's own logins left out). */
function signInsAtVra(sim: Stack['vra'], names: (username: string) => boolean): string[] {
  return tokenRequests(sim)
    .map((r) => (JSON.parse(r.body.toString('utf8')) as { username: string }).username)
    .filter(names);
}

const headers = (address: string): Record<string, string> => ({
  'content-type': 'application/json',
  'x-graphql-csrf': '1',
  'x-forwarded-for': address,
});

async function post(address: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: headers(address),
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

interface Answer {
  errors?: Array<{ extensions?: { code?: string } }>;
}

const codeOf = (answer: unknown): string | undefined =>
  (answer as Answer).errors?.[0]?.extensions?.code;

/** How many of the answers carry each error code (`ok` for none). */
function codes(answers: readonly unknown[]): Record<string, number> {
  const counted: Record<string, number> = {};
  for (const answer of answers) {
    const code = codeOf(answer) ?? 'ok';
    counted[code] = (counted[code] ?? 0) + 1;
  }
  return counted;
}

describe('sign-in limits per user name, attempts sent side by side', () => {
  it('lets exactly 5 of 40 parallel wrong sign-ins for one user reach vRA, and refuses the others 429 RATE_LIMITED', async () => {
    const user = 'parallel-victim@vsphere.local';
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post('198.51.100.1', { query: signInMutation, variables: { u: user, p: `guess-${i}` } }),
      ),
    );
    expect(signInsAtVra(stack.vra, (name) => name === user)).toHaveLength(5);
    expect(codes(answers.map((a) => a.body))).toEqual({ UNAUTHENTICATED: 5, RATE_LIMITED: 35 });
    expect(answers.filter((a) => a.status === 429)).toHaveLength(35);
    const refusedLines = logLines
      .map((line) => JSON.parse(line) as { clientAddress?: string; errorCodes?: string[] })
      .filter((line) => line.clientAddress === '198.51.100.1');
    expect(refusedLines.filter((l) => l.errorCodes?.includes('RATE_LIMITED'))).toHaveLength(35);
  });

  it('lets at most 5 of a JSON batch of 9 wrong passwords and the right one reach vRA: the right one, past the limit, does not sign in', async () => {
    const user = 'tester@vsphere.local';
    const batch = [
      ...Array.from({ length: 9 }, (_, i) => ({
        query: signInMutation,
        variables: { u: user, p: `wrong-${i}` },
      })),
      { query: signInMutation, variables: { u: user, p: 'tester-simulator' } },
    ];
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: headers('198.51.100.2'),
      body: JSON.stringify(batch),
    });
    const answers = (await response.json()) as any[];
    expect(answers).toHaveLength(10);
    const reached = signInsAtVra(stack.vra, (name) => name === user);
    expect(reached).toHaveLength(5);
    expect(codes(answers)).toEqual({ UNAUTHENTICATED: 5, RATE_LIMITED: 5 });
    expect(codeOf(answers[9])).toBe('RATE_LIMITED');
    expect(response.headers.getSetCookie().join()).not.toContain('gateway_session=');

    // the right password alone, afterwards, is refused too: no failure of the batch was forgotten
    const again = await post('198.51.100.3', {
      query: signInMutation,
      variables: { u: user, p: 'tester-simulator' },
    });
    expect(again.status).toBe(429);
    expect(signInsAtVra(stack.vra, (name) => name === user)).toHaveLength(5);
  });

  it('does not let a success forget the failures sent beside it: the right password among 5 wrong ones leaves 4 counted', async () => {
    const user = 'dba@vsphere.local';
    const batch = [
      { query: signInMutation, variables: { u: user, p: 'dba-simulator' } },
      ...Array.from({ length: 4 }, (_, i) => ({
        query: signInMutation,
        variables: { u: user, p: `wrong-${i}` },
      })),
    ];
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: headers('198.51.100.4'),
      body: JSON.stringify(batch),
    });
    const answers = (await response.json()) as any[];
    expect(codes(answers)).toEqual({ ok: 1, UNAUTHENTICATED: 4 });
    // one place is left in the window (the success gave back its own), then the name is refused
    const fifth = await post('198.51.100.4', {
      query: signInMutation,
      variables: { u: user, p: 'wrong-again' },
    });
    expect(codeOf(fifth.body)).toBe('UNAUTHENTICATED');
    const sixth = await post('198.51.100.4', {
      query: signInMutation,
      variables: { u: user, p: 'dba-simulator' },
    });
    expect(codeOf(sixth.body)).toBe('RATE_LIMITED');
    expect(signInsAtVra(stack.vra, (name) => name === user)).toHaveLength(6);
  });
});

describe('sign-in limits per client address, through every transport', () => {
  /** 25 sign-ins, each for a user name of its own, sent at once through `send`. */
  async function spray(
    prefix: string,
    send: (username: string) => Promise<unknown>,
  ): Promise<{ reached: string[]; answers: unknown[] }> {
    const names = Array.from({ length: 25 }, (_, i) => `${prefix}-${i}@vsphere.local`);
    const answers = await Promise.all(names.map(send));
    return { reached: signInsAtVra(stack.vra, (name) => name.startsWith(`${prefix}-`)), answers };
  }

  it('POST: lets at most 20 of 25 user names from one address reach vRA', async () => {
    const { reached, answers } = await spray(
      'post',
      async (u) =>
        (await post('198.51.100.10', { query: signInMutation, variables: { u, p: 'guess' } })).body,
    );
    expect(reached).toHaveLength(20);
    expect(codes(answers)).toEqual({ UNAUTHENTICATED: 20, RATE_LIMITED: 5 });
  });

  it('GET: refuses signIn as a mutation (405) without asking vRA', async () => {
    const { reached, answers } = await spray('get', async (u) => {
      const url = new URL(endpoint);
      url.searchParams.set('query', signInMutation);
      url.searchParams.set('variables', JSON.stringify({ u, p: 'guess' }));
      const response = await fetch(url, { headers: headers('198.51.100.11') });
      return { status: response.status };
    });
    expect(reached).toHaveLength(0);
    expect(answers.map((a) => (a as { status: number }).status)).toEqual(Array(25).fill(405));
  });

  it('multipart: lets at most 20 of 25 user names from one address reach vRA', async () => {
    const { reached, answers } = await spray('multipart', async (u) => {
      const form = new FormData();
      form.append(
        'operations',
        JSON.stringify({ query: signInMutation, variables: { u, p: 'x' } }),
      );
      form.append('map', '{}');
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'x-graphql-csrf': '1', 'x-forwarded-for': '198.51.100.12' },
        body: form,
      });
      return (await response.json()) as unknown;
    });
    expect(reached).toHaveLength(20);
    expect(codes(answers)).toEqual({ UNAUTHENTICATED: 20, RATE_LIMITED: 5 });
  });

  it('SSE distinct connections: lets at most 20 of 25 user names from one address reach vRA', async () => {
    const { reached, answers } = await spray('sse', async (u) => {
      const stream = await SseSubscription.open(
        server.url,
        signInMutation,
        { u, p: 'guess' },
        { 'x-forwarded-for': '198.51.100.13' },
      );
      try {
        return ((await stream.next()) as SseEvent).data as unknown;
      } finally {
        stream.close();
      }
    });
    expect(reached).toHaveLength(20);
    expect(codes(answers)).toEqual({ UNAUTHENTICATED: 20, RATE_LIMITED: 5 });
  });

  it('SSE single connection: lets at most 20 of 25 user names from one address reach vRA, and audits that address', async () => {
    const address = '198.51.100.14';
    const reserved = await fetch(endpoint, { method: 'PUT', headers: headers(address) });
    const token = await reserved.text();
    const stream = await SseSubscription.request(endpoint, {
      headers: { accept: 'text/event-stream', [tokenHeader]: token, 'x-forwarded-for': address },
    });
    try {
      const audited = stack.audit.length;
      const names = Array.from({ length: 25 }, (_, i) => `single-${i}@vsphere.local`);
      const started = await Promise.all(
        names.map(async (u) => {
          const response = await fetch(endpoint, {
            method: 'POST',
            headers: { ...headers(address), [tokenHeader]: token },
            body: JSON.stringify({
              query: signInMutation,
              variables: { u, p: 'guess' },
              extensions: { operationId: u },
            }),
          });
          return response.status;
        }),
      );
      expect(started).toEqual(Array(25).fill(202));
      const answers: unknown[] = [];
      while (answers.length < 25) {
        const event = await stream.next();
        if (event === null) break;
        if (event.event === 'next') answers.push(event.data.payload);
      }
      expect(codes(answers)).toEqual({ UNAUTHENTICATED: 20, RATE_LIMITED: 5 });
      expect(signInsAtVra(stack.vra, (name) => name.startsWith('single-'))).toHaveLength(20);
      const events = stack.audit.slice(audited).filter((e) => e.field === 'signIn');
      expect(events).toHaveLength(25);
      expect(new Set(events.map((e) => e.clientAddress))).toEqual(new Set([address]));
    } finally {
      stream.close();
    }
  });
});

describe('the client address behind a trusted proxy (TRUSTED_PROXIES)', () => {
  it('is the rightmost untrusted X-Forwarded-For address, in the audit event and the request log: a forged first entry is not believed', async () => {
    const audited = stack.audit.length;
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        ...headers('198.51.100.200, 198.51.100.30'),
        'x-request-id': 'forwarded-client-1',
      },
      body: JSON.stringify({
        query: signInMutation,
        variables: { u: 'forwarded@vsphere.local', p: 'guess' },
      }),
    });
    expect(codeOf(await response.json())).toBe('UNAUTHENTICATED');
    const events = stack.audit.slice(audited).filter((e) => e.field === 'signIn');
    expect(events.map((e) => e.clientAddress)).toEqual(['198.51.100.30']);
    const logged = logLines
      .map((line) => JSON.parse(line) as { requestId?: string; clientAddress?: unknown })
      .filter((line) => line.requestId === 'forwarded-client-1');
    expect(logged).toEqual([expect.objectContaining({ clientAddress: '198.51.100.30' })]);
  });
});

describe('the client address without TRUSTED_PROXIES', () => {
  let plain: Stack;
  let plainServer: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    plain = await startStack();
    plainServer = await listen(plain.gateway);
  });
  afterAll(async () => {
    await plainServer.close();
    await plain.close();
  });

  it('is the socket peer in SSE single-connection mode: audited, and its 20 failures stop a 21st user name', async () => {
    const url = `${plainServer.url}/graphql`;
    const token = await (await fetch(url, { method: 'PUT' })).text();
    const stream = await SseSubscription.request(url, {
      headers: { accept: 'text/event-stream', [tokenHeader]: token },
    });
    try {
      const audited = plain.audit.length;
      const names = Array.from({ length: 25 }, (_, i) => `peer-${i}@vsphere.local`);
      await Promise.all(
        names.map((u) =>
          fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', [tokenHeader]: token },
            body: JSON.stringify({
              query: signInMutation,
              variables: { u, p: 'guess' },
              extensions: { operationId: u },
            }),
          }),
        ),
      );
      const answers: unknown[] = [];
      while (answers.length < 25) {
        const event = await stream.next();
        if (event === null) break;
        if (event.event === 'next') answers.push(event.data.payload);
      }
      expect(codes(answers)).toEqual({ UNAUTHENTICATED: 20, RATE_LIMITED: 5 });
      expect(signInsAtVra(plain.vra, (name) => name.startsWith('peer-'))).toHaveLength(20);
      const events = plain.audit.slice(audited).filter((e) => e.field === 'signIn');
      expect(events.map((e) => e.clientAddress)).toEqual(Array(25).fill('127.0.0.1'));
    } finally {
      stream.close();
    }
  });

  it('does not believe X-Forwarded-For from a client that is not a trusted proxy', async () => {
    const url = `${plainServer.url}/graphql`;
    const audited = plain.audit.length;
    // 25 attempts, each claiming another address: all count against the real one
    const answers = await Promise.all(
      Array.from({ length: 25 }, async (_, i) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-forwarded-for': `203.0.113.${i}`,
          },
          body: JSON.stringify({
            query: signInMutation,
            variables: { u: `forged-${i}@vsphere.local`, p: 'guess' },
          }),
        });
        return (await response.json()) as unknown;
      }),
    );
    // the previous test's 20 failures from 127.0.0.1 are still in the window
    expect(codes(answers)).toEqual({ RATE_LIMITED: 25 });
    expect(signInsAtVra(plain.vra, (name) => name.startsWith('forged-'))).toHaveLength(0);
    const events = plain.audit.slice(audited).filter((e) => e.field === 'signIn');
    expect(new Set(events.map((e) => e.clientAddress))).toEqual(new Set(['127.0.0.1']));
  });
});
