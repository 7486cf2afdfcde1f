import { afterEach, describe, expect, it } from 'vitest';
import {
  Authenticator,
  bearerTokenOf,
  sessionCookieName,
  sessionCookieOf,
} from '../../src/auth/authenticate.ts';
import { anonymous } from '../../src/auth/caller.ts';
import { requestAuth, setRequestAuth, type RequestAuth } from '../../src/auth/request-auth.ts';
import {
  onlyOpenFields,
  openRootFields,
  requestedOperation,
} from '../../src/auth/requested-operation.ts';
import { allScopes, isScope } from '../../src/auth/scopes.ts';
import { SessionCookies } from '../../src/auth/session-cookie.ts';
import { SessionCipher } from '../../src/auth/session-crypto.ts';
import {
  SessionStore,
  SessionStoreUnavailableError,
  type Session,
} from '../../src/auth/session-store.ts';
import { SignInLimiter, signInLimits } from '../../src/auth/sign-in-limiter.ts';
import type { AuthConfig } from '../../src/config.ts';
import { MemoryRedis } from '../helpers/memory-store.ts';
import {
  epochSeconds,
  signingKey,
  signJwt,
  startJwksServer,
  type JwksServer,
} from '../helpers/jwks.ts';

const hour = 60 * 60 * 1000;
const stores: SessionStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

function config(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return {
    tokens: [],
    tokensFile: undefined,
    jwt: undefined,
    sessionScopes: ['read', 'workflow:run'],
    sessionSecret: undefined,
    sessionCookieSecure: true,
    audit: 'stdout',
    ...overrides,
  };
}

function sessionStore(): SessionStore {
  const store = new SessionStore();
  stores.push(store);
  return store;
}

function request(headers: Record<string, string> = {}): Request {
  return new Request('http://gateway.test/graphql', { headers });
}

const session = (): Session => ({
  username: 'dba@vsphere.local',
  tenant: 'vsphere.local',
  vraToken: 'vra-token-of-the-session',
  expiresAt: Date.now() + hour,
});

describe('bearerTokenOf', () => {
  it('reads the token of a Bearer header in any case, with spaces around it', () => {
    expect(bearerTokenOf('Bearer abc.def')).toBe('abc.def');
    expect(bearerTokenOf('bearer   abc  ')).toBe('abc');
    expect(bearerTokenOf('BEARER\tabc')).toBe('abc');
  });

  it('reads nothing else', () => {
    expect(bearerTokenOf(null)).toBeUndefined();
    expect(bearerTokenOf('')).toBeUndefined();
    expect(bearerTokenOf('Bearer')).toBeUndefined();
    expect(bearerTokenOf('Bearer a b')).toBeUndefined();
    expect(bearerTokenOf('Basic abc')).toBeUndefined();
    expect(bearerTokenOf('x Bearer abc')).toBeUndefined();
    expect(bearerTokenOf('Bearerabc')).toBeUndefined();
  });
});

describe('sessionCookieOf', () => {
  it('reads the gateway_session cookie among others', () => {
    expect(sessionCookieName).toBe('gateway_session');
    expect(sessionCookieOf(request({ cookie: 'a=1; gateway_session=s3ss; b=2' }))).toBe('s3ss');
  });

  it('reads none from no cookie header, another cookie or an empty value', () => {
    expect(sessionCookieOf(request())).toBeUndefined();
    expect(sessionCookieOf(request({ cookie: 'other=1' }))).toBeUndefined();
    expect(sessionCookieOf(request({ cookie: 'gateway_session=' }))).toBeUndefined();
  });
});

describe('Authenticator', () => {
  const tokens = [
    { name: 'ci', token: 'ci-token-0123456789', scopes: ['read'] as const },
    { name: 'ops', token: 'ops-token-0123456789', scopes: ['read', 'network:write'] as const },
  ];

  it('requires nothing without tokens or JWT: anyone is anonymous with every scope', async () => {
    const authenticator = new Authenticator(config(), sessionStore());
    expect(authenticator.required).toBe(false);
    const resolution = await authenticator.resolve(request({ authorization: 'Bearer whatever' }));
    expect(resolution).toEqual({ kind: 'caller', caller: anonymous(new Set(allScopes)) });
    if (resolution.kind !== 'caller') throw new Error('no caller');
    expect([...resolution.caller.scopes]).toEqual([...allScopes]);
    expect(resolution.caller.name).toBe('anonymous');
    expect(resolution.caller.via).toBe('anonymous');
  });

  it('requires a credential when a tokens file is given, even one that lists none', async () => {
    const authenticator = new Authenticator(config({ tokensFile: '/x/tokens' }), sessionStore());
    expect(authenticator.required).toBe(true);
    expect(await authenticator.resolve(request())).toEqual({ kind: 'missing' });
  });

  it('takes a gateway token for its name and scopes', async () => {
    const authenticator = new Authenticator(config({ tokens }), sessionStore());
    expect(authenticator.required).toBe(true);
    const ops = await authenticator.resolve(
      request({ authorization: 'Bearer ops-token-0123456789' }),
    );
    expect(ops).toEqual({
      kind: 'caller',
      caller: { name: 'ops', via: 'token', scopes: new Set(['read', 'network:write']) },
    });
    const ci = await authenticator.resolve(
      request({ authorization: 'bearer ci-token-0123456789' }),
    );
    expect(ci).toMatchObject({ kind: 'caller', caller: { name: 'ci', via: 'token' } });
  });

  it('takes the first of two entries of one token', async () => {
    const twice = [
      { name: 'first', token: 'same-token-0123', scopes: ['read'] as const },
      { name: 'second', token: 'same-token-0123', scopes: ['package:import'] as const },
    ];
    const authenticator = new Authenticator(config({ tokens: twice }), sessionStore());
    expect(
      await authenticator.resolve(request({ authorization: 'Bearer same-token-0123' })),
    ).toMatchObject({ kind: 'caller', caller: { name: 'first', scopes: new Set(['read']) } });
  });

  it('refuses an unknown token, a malformed header, and says what it wants', async () => {
    const authenticator = new Authenticator(config({ tokens }), sessionStore());
    const refused = {
      kind: 'refused',
      reason:
        'A valid gateway bearer token or identity-provider JWT is required (Authorization: Bearer <token>).',
    };
    expect(await authenticator.resolve(request({ authorization: 'Bearer nope' }))).toEqual(refused);
    expect(await authenticator.resolve(request({ authorization: 'Basic b3BzOng=' }))).toEqual(
      refused,
    );
    expect(
      await authenticator.resolve(request({ authorization: 'Bearer ops-token-012345678' })),
    ).toEqual(refused);
  });

  it('looks at the Authorization header before a session cookie when credentials are required', async () => {
    const store = sessionStore();
    const cookie = await store.create(session());
    const authenticator = new Authenticator(config({ tokens }), store);
    expect(
      await authenticator.resolve(
        request({ authorization: 'Bearer nope', cookie: `${sessionCookieName}=${cookie}` }),
      ),
    ).toMatchObject({ kind: 'refused' });
  });

  it('takes a session cookie for the signed-in person, with the session scopes', async () => {
    const store = sessionStore();
    const state = session();
    const cookie = await store.create(state);
    for (const auth of [config(), config({ tokens })]) {
      const authenticator = new Authenticator(auth, store);
      const resolution = await authenticator.resolve(
        request({ cookie: `${sessionCookieName}=${cookie}` }),
      );
      expect(resolution).toEqual({
        kind: 'caller',
        caller: {
          name: 'dba@vsphere.local',
          via: 'session',
          scopes: new Set(['read', 'workflow:run']),
          tenant: 'vsphere.local',
          expiresAt: state.expiresAt,
          session: { cookie, state },
        },
      });
    }
  });

  it('tells an ended session from one that cannot be told now', async () => {
    const store = sessionStore();
    const cookie = await store.create(session());
    await store.end(cookie);
    const authenticator = new Authenticator(config({ tokens }), store);
    expect(
      await authenticator.resolve(request({ cookie: `${sessionCookieName}=${cookie}` })),
    ).toEqual({ kind: 'session-ended' });
    const unavailable = {
      get: () => Promise.reject(new SessionStoreUnavailableError()),
    } as unknown as SessionStore;
    expect(
      await new Authenticator(config({ tokens }), unavailable).resolve(
        request({ cookie: `${sessionCookieName}=x` }),
      ),
    ).toEqual({ kind: 'session-unknown' });
    const broken = { get: () => Promise.reject(new Error('bug')) } as unknown as SessionStore;
    await expect(
      new Authenticator(config({ tokens }), broken).resolve(
        request({ cookie: `${sessionCookieName}=x` }),
      ),
    ).rejects.toThrow('bug');
  });
});

/** An attempt that vRA refused: its place is kept. */
async function fail(limiter: SignInLimiter, user: string, address: string | null): Promise<void> {
  const reservation = await limiter.reserve(user, address);
  if (!reservation.granted) throw new Error(`refused: ${user} ${address}`);
}

/** The seconds an attempt would wait now (0: it would pass; its place is given back at once). */
async function waitOf(limiter: SignInLimiter, user: string, address: string | null) {
  const reservation = await limiter.reserve(user, address);
  if (!reservation.granted) return reservation.retryAfter;
  await reservation.attempt.succeeded();
  return 0;
}

describe('SignInLimiter', () => {
  const limits = { perUser: 2, perAddress: 3, windowMs: 10_000 };

  it('refuses a user after its failures, for the rest of the window in whole seconds', async () => {
    let now = 1_000_000;
    const limiter = new SignInLimiter(limits, () => now);
    expect(await waitOf(limiter, 'Ann', '10.0.0.1')).toBe(0);
    await fail(limiter, 'Ann', '10.0.0.1');
    expect(await waitOf(limiter, 'Ann', '10.0.0.1')).toBe(0);
    now += 1;
    await fail(limiter, ' ANN ', '10.0.0.2');
    expect(await waitOf(limiter, 'ann', null)).toBe(10);
    now += 4_500;
    expect(await waitOf(limiter, 'ann', null)).toBe(6);
    now += 5_498;
    expect(await waitOf(limiter, 'ann', null)).toBe(1);
    now += 1;
    // the window of the first failure has ended
    expect(await waitOf(limiter, 'ann', null)).toBe(0);
    await fail(limiter, 'ann', null);
    expect(await waitOf(limiter, 'ann', null)).toBe(0);
  });

  it('refuses an address after its failures, whichever users they were for', async () => {
    const now = 5_000;
    const limiter = new SignInLimiter(limits, () => now);
    await fail(limiter, 'a', '192.0.2.1');
    await fail(limiter, 'b', '192.0.2.1');
    expect(await waitOf(limiter, 'c', '192.0.2.1')).toBe(0);
    await fail(limiter, 'c', '192.0.2.1');
    expect(await waitOf(limiter, 'd', '192.0.2.1')).toBe(10);
    expect(await waitOf(limiter, 'd', '192.0.2.2')).toBe(0);
    expect(await waitOf(limiter, 'd', null)).toBe(0);
  });

  it('takes the longer of the two waits', async () => {
    let now = 0;
    const limiter = new SignInLimiter(limits, () => now);
    await fail(limiter, 'a', '192.0.2.9');
    await fail(limiter, 'b', '192.0.2.9');
    now = 3_000;
    await fail(limiter, 'c', '192.0.2.9');
    await fail(limiter, 'c', null);
    // c's window began at 3 s, the address's at 0 s
    expect(await waitOf(limiter, 'c', '192.0.2.9')).toBe(10);
    now = 9_000;
    expect(await waitOf(limiter, 'c', '192.0.2.9')).toBe(4);
  });

  it('takes a place before the attempt is answered: attempts sent side by side cannot all pass', async () => {
    const limiter = new SignInLimiter(limits, () => 0);
    const reservations = await Promise.all(
      Array.from({ length: 6 }, () => limiter.reserve('ann', '192.0.2.4')),
    );
    expect(reservations.map((r) => r.granted)).toEqual([true, true, false, false, false, false]);
  });

  it("gives back a success's own place only, never the failures sent beside it", async () => {
    const limiter = new SignInLimiter(limits, () => 0);
    await fail(limiter, 'Ann', '192.0.2.3');
    const right = await limiter.reserve('ann', '192.0.2.3');
    expect(right.granted).toBe(true);
    expect(await waitOf(limiter, 'ann', null)).toBe(10);
    if (right.granted) {
      await right.attempt.succeeded();
      await right.attempt.succeeded(); // twice gives back no more
    }
    expect(await waitOf(limiter, 'ann', null)).toBe(0);
    await fail(limiter, 'ann', null);
    expect(await waitOf(limiter, ' ANN', null)).toBe(10);
    // the address keeps its failures (Ann's, Bob's), not the success: a third fills it
    await fail(limiter, 'bob', '192.0.2.3');
    expect(await waitOf(limiter, 'eve', '192.0.2.3')).toBe(0);
    await fail(limiter, 'carl', '192.0.2.3');
    expect(await waitOf(limiter, 'eve', '192.0.2.3')).toBe(10);
  });

  it('gives back nothing of an address or user that a refused attempt did not take', async () => {
    const limiter = new SignInLimiter(limits, () => 0);
    await fail(limiter, 'ann', null);
    await fail(limiter, 'ann', null);
    // refused for the user: the address's count is not touched
    expect(await waitOf(limiter, 'ann', '192.0.2.5')).toBe(10);
    for (let i = 0; i < 3; i++) await fail(limiter, `u${i}`, '192.0.2.5');
    expect(await waitOf(limiter, 'v', '192.0.2.5')).toBe(10);
  });

  it('counts an IPv6 client with its /64, an IPv4 client alone', async () => {
    const limiter = new SignInLimiter(limits, () => 0);
    await fail(limiter, 'a', '2001:db8:1:2::1');
    await fail(limiter, 'b', '2001:db8:1:2:ffff:1:2:3');
    await fail(limiter, 'c', '2001:0db8:0001:0002:0:0:0:9');
    expect(await waitOf(limiter, 'd', '2001:db8:1:2:aaaa::')).toBe(10);
    expect(await waitOf(limiter, 'd', '2001:db8:1:3::1')).toBe(0);
    expect(await waitOf(limiter, 'd', '1::3:4:5:6:1.2.3.4')).toBe(0);
    for (const address of ['192.0.2.10', '192.0.2.11', '192.0.2.12']) {
      await fail(limiter, `e-${address}`, address);
      await fail(limiter, `f-${address}`, address);
    }
    expect(await waitOf(limiter, 'g', '192.0.2.13')).toBe(0);
  });

  it('keeps counting through a sweep of many windows, and sweeps only ended ones', async () => {
    let now = 0;
    const limiter = new SignInLimiter(
      { perUser: 2, perAddress: 100_000, windowMs: 100 },
      () => now,
    );
    await fail(limiter, 'kept', null);
    for (let i = 0; i < 10_001; i++) await fail(limiter, `old-${i}`, null);
    now = 50;
    await fail(limiter, 'kept', null);
    expect(await waitOf(limiter, 'kept', null)).toBe(1);
  });

  it('defaults to 5 per user and 20 per address in 5 minutes', async () => {
    expect(signInLimits).toEqual({ perUser: 5, perAddress: 20, windowMs: 300_000 });
    const limiter = new SignInLimiter();
    for (let i = 0; i < 4; i++) await fail(limiter, 'u', null);
    expect(await waitOf(limiter, 'u', null)).toBe(0);
    await fail(limiter, 'u', null);
    expect(await waitOf(limiter, 'u', null)).toBe(300);
  });
});

describe('SignInLimiter with a shared store (REDIS_URL)', () => {
  const limits = { perUser: 2, perAddress: 3, windowMs: 10_000 };

  it('counts the attempts of every replica together, and gives back a success of any of them', async () => {
    const redis = new MemoryRedis();
    const [a, b, c] = ['a', 'b', 'c'].map(
      (id) => new SignInLimiter(limits, () => 0, redis.store(id)),
    ) as [SignInLimiter, SignInLimiter, SignInLimiter];
    const sent = await Promise.all([a, b, c, a, b, c].map((l) => l.reserve('ann', null)));
    expect(sent.filter((r) => r.granted)).toHaveLength(2);
    expect(sent.find((r) => !r.granted)).toEqual({ granted: false, retryAfter: 10 });
    const winner = sent.find((r) => r.granted);
    if (winner?.granted) await winner.attempt.succeeded();
    // one place back, shared: another replica may use it, then no one
    expect(await waitOf(c, 'ann', null)).toBe(0);
    await fail(b, 'ann', null);
    expect(await waitOf(a, 'ann', null)).toBe(10);
    // an address spread over replicas is counted together too
    for (const [i, limiter] of [a, b, c].entries()) await fail(limiter, `u${i}`, '192.0.2.7');
    expect(await waitOf(b, 'v', '192.0.2.7')).toBe(10);
    expect(redis.commands.some((command) => command.endsWith(' increment'))).toBe(true);
    expect([...redis.values.keys()].join()).not.toContain('ann');
  });

  it('gives back what it took in the store when the attempt is refused by its second key', async () => {
    const redis = new MemoryRedis();
    const limiter = new SignInLimiter(limits, () => 0, redis.store('a'));
    const other = new SignInLimiter(limits, () => 0, redis.store('b'));
    for (let i = 0; i < 3; i++) await fail(other, `x${i}`, '192.0.2.8');
    // refused for the address (on the store: this replica's own count is empty): the user's place is given back
    expect(await waitOf(limiter, 'ann', '192.0.2.8')).toBe(10);
    expect(await waitOf(limiter, 'ann', '192.0.2.8')).toBe(10);
    await fail(limiter, 'ann', null);
    expect(await waitOf(limiter, 'ann', null)).toBe(0);
  });

  it("keeps each replica's own limits while the store cannot be reached", async () => {
    const redis = new MemoryRedis();
    const a = new SignInLimiter(limits, () => 0, redis.store('a'));
    const b = new SignInLimiter(limits, () => 0, redis.store('b'));
    await fail(a, 'ann', null);
    redis.up = false;
    await fail(a, 'ann', null);
    expect(await waitOf(a, 'ann', null)).toBe(10);
    await fail(b, 'ann', null);
    await fail(b, 'ann', null);
    expect(await waitOf(b, 'ann', null)).toBe(10);
  });

  it('counts on its own when the store fails mid-way, and leaves nothing of its own there', async () => {
    const redis = new MemoryRedis();
    const store = redis.store('a');
    let calls = 0;
    const failing = {
      ...store,
      available: true,
      key: (kind: string, ...parts: string[]) => store.key(kind, ...parts),
      increment: async (key: string, ttlMs: number) => {
        calls += 1;
        if (calls === 2) throw new Error('Command timed out');
        return store.increment(key, ttlMs);
      },
      decrement: (key: string) => store.decrement(key),
    };
    const limiter = new SignInLimiter(limits, () => 0, failing);
    expect((await limiter.reserve('ann', '192.0.2.9')).granted).toBe(true);
    expect([...redis.values.values()].map((v) => v.value)).toEqual(['0']);
    await fail(limiter, 'ann', null);
    expect(await waitOf(limiter, 'ann', null)).toBe(10);
  });
});

describe('requestedOperation', () => {
  const url = new URL('http://gateway.test/graphql');
  const post = (body: unknown, type = 'application/json') =>
    new Request(url, {
      method: 'POST',
      headers: { 'content-type': type },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('reads the root fields of a POSTed operation with their arguments and variables', async () => {
    const operation = await requestedOperation(
      post({
        query:
          'mutation Run($id: ID!) { runWorkflow(id: $id, inputs: [{name: "a", value: 1}]) { id } viewer { name } }',
        variables: { id: 'wf-1' },
        operationName: 'Run',
      }),
      url,
    );
    expect(operation).toEqual({
      name: 'Run',
      type: 'mutation',
      fields: [
        { name: 'runWorkflow', arguments: { id: 'wf-1', inputs: [{ name: 'a', value: 1 }] } },
        { name: 'viewer', arguments: {} },
      ],
    });
  });

  it('reads a GET query, and the fields of inline fragments at the root', async () => {
    const get = new URL(url);
    get.searchParams.set('query', '{ ... on Query { viewer { name } } __typename }');
    expect(await requestedOperation(new Request(get), get)).toEqual({
      name: null,
      type: 'query',
      fields: [
        { name: 'viewer', arguments: {} },
        { name: '__typename', arguments: {} },
      ],
    });
  });

  it('picks the named operation of several, and none when no name picks one', async () => {
    const query = 'query A { viewer { name } } mutation B { signOut }';
    expect(await requestedOperation(post({ query, operationName: 'B' }), url)).toMatchObject({
      name: 'B',
      type: 'mutation',
    });
    expect(await requestedOperation(post({ query }), url)).toBeUndefined();
    expect(await requestedOperation(post({ query, operationName: 'C' }), url)).toBeUndefined();
  });

  it('takes variables only from an object', async () => {
    const query = 'query Q($id: ID) { workflow(id: $id) { id } }';
    for (const variables of [null, ['x'], 'x']) {
      expect(await requestedOperation(post({ query, variables }), url)).toMatchObject({
        fields: [{ name: 'workflow', arguments: {} }],
      });
    }
  });

  it('reads nothing it cannot be sure of', async () => {
    const unsure = [
      post({ query: '{ ...F } fragment F on Query { viewer { name } }' }),
      post({ query: '{ viewer @include(if: true) { name } }' }),
      post({ query: '{ ... on Query @skip(if: false) { viewer { name } } }' }),
      post({ query: '{ ... on Query { ...F } } fragment F on Query { viewer { name } }' }),
      post({ query: '{ viewer ' }),
      post({ query: 42 }),
      post({ query: `{ viewer { name } }${' '.repeat(65_536)}` }),
      post({ query: `{ ${'a '.repeat(3001)} }` }),
      post('not json'),
      post(['{ viewer { name } }']),
      post('null'),
      post({ query: '{ viewer { name } }' }, 'text/plain'),
      new Request(url, { method: 'PUT', body: JSON.stringify({ query: '{ viewer { name } }' }) }),
    ];
    for (const one of unsure) expect(await requestedOperation(one, url)).toBeUndefined();
    expect(
      await requestedOperation(
        post({ query: '{ viewer { name } }' }, 'Application/JSON; charset=utf-8'),
        url,
      ),
    ).toMatchObject({ fields: [{ name: 'viewer' }] });
    expect(
      await requestedOperation(post({ query: `{ viewer { name } }${' '.repeat(65_000)}` }), url),
    ).toMatchObject({ fields: [{ name: 'viewer' }] });
  });

  it('leaves the request body to be read again', async () => {
    const request = post({ query: '{ viewer { name } }' });
    await requestedOperation(request, url);
    expect(await request.json()).toEqual({ query: '{ viewer { name } }' });
  });

  it('tells an operation of only open fields: signIn, signOut, viewer, __typename, and no subscription', () => {
    expect([...openRootFields].sort()).toEqual(['__typename', 'signIn', 'signOut', 'viewer']);
    const of = (type: 'query' | 'mutation' | 'subscription', ...names: string[]) => ({
      name: null,
      type: type as never,
      fields: names.map((name) => ({ name, arguments: {} })),
    });
    expect(onlyOpenFields(undefined)).toBe(false);
    expect(onlyOpenFields(of('query', 'viewer', '__typename'))).toBe(true);
    expect(onlyOpenFields(of('mutation', 'signIn'))).toBe(true);
    expect(onlyOpenFields(of('mutation', 'signOut', 'runWorkflow'))).toBe(false);
    expect(onlyOpenFields(of('subscription', 'viewer'))).toBe(false);
    expect(onlyOpenFields(of('query'))).toBe(true);
  });
});

describe('scopes, callers and request state', () => {
  it('knows the six scopes and nothing else', () => {
    expect([...allScopes]).toEqual([
      'catalog:admin',
      'catalog:request',
      'network:write',
      'package:import',
      'read',
      'workflow:run',
    ]);
    for (const scope of allScopes) expect(isScope(scope)).toBe(true);
    expect(isScope('admin')).toBe(false);
    expect(isScope('READ')).toBe(false);
  });

  it('makes an anonymous caller with the scopes given', () => {
    const scopes = new Set(['read'] as const);
    expect(anonymous(scopes)).toEqual({ name: 'anonymous', via: 'anonymous', scopes });
  });

  it('keeps the auth state of each request', () => {
    const a = request();
    const b = request();
    const state: RequestAuth = {
      caller: anonymous(new Set()),
      clientAddress: null,
      setCookies: [],
    };
    expect(requestAuth(a)).toBeUndefined();
    setRequestAuth(a, state);
    expect(requestAuth(a)).toBe(state);
    expect(requestAuth(b)).toBeUndefined();
  });
});

describe('SessionCookies', () => {
  it('issues an HttpOnly, SameSite=Strict cookie for the whole path, Secure as configured', () => {
    const expires = Date.UTC(2030, 0, 2, 3, 4, 5);
    expect(new SessionCookies(true).issue('v4lue', expires)).toBe(
      'gateway_session=v4lue; Path=/; Expires=Wed, 02 Jan 2030 03:04:05 GMT; HttpOnly; Secure; SameSite=Strict',
    );
    expect(new SessionCookies(false).issue('v4lue', expires)).toBe(
      'gateway_session=v4lue; Path=/; Expires=Wed, 02 Jan 2030 03:04:05 GMT; HttpOnly; SameSite=Strict',
    );
  });

  it('clears the cookie with an empty value that expired in 1970', () => {
    expect(new SessionCookies(true).clear()).toBe(
      'gateway_session=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Strict',
    );
  });
});

describe('SessionCipher', () => {
  const cipher = new SessionCipher('a-session-secret-of-32-characters!');

  it('opens what it sealed for the same key, and only that', () => {
    const sealed = cipher.seal('{"u":"ann"}', 'session:abc');
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cipher.open(sealed, 'session:abc')).toBe('{"u":"ann"}');
    expect(cipher.open(sealed, 'session:abd')).toBeUndefined();
    expect(
      new SessionCipher('another-secret-of-32-characters!!').open(sealed, 'session:abc'),
    ).toBeUndefined();
  });

  it('seals with a new nonce each time: 12 bytes, a 16-byte tag, then the text', () => {
    const a = cipher.seal('same', 'k');
    const b = cipher.seal('same', 'k');
    expect(a).not.toBe(b);
    expect(Buffer.from(a, 'base64url')).toHaveLength(12 + 16 + 4);
    expect(cipher.seal('', 'k')).toHaveLength(Math.ceil((28 * 4) / 3));
    // at least one byte of text: an empty one (never sealed, a session is JSON) does not open
    expect(cipher.open(cipher.seal('', 'k'), 'k')).toBeUndefined();
    expect(cipher.open(cipher.seal('x', 'k'), 'k')).toBe('x');
  });

  it('refuses a value too short to hold a nonce and a tag, or altered anywhere', () => {
    const sealed = Buffer.from(cipher.seal('text', 'k'), 'base64url');
    expect(cipher.open(sealed.subarray(0, 28).toString('base64url'), 'k')).toBeUndefined();
    expect(cipher.open(sealed.subarray(0, 29).toString('base64url'), 'k')).toBeUndefined();
    for (const at of [0, 11, 12, 27, 28, sealed.length - 1]) {
      const altered = Buffer.from(sealed);
      altered[at] = (altered[at] ?? 0) ^ 1;
      expect(cipher.open(altered.toString('base64url'), 'k'), `byte ${at}`).toBeUndefined();
    }
    expect(cipher.open('', 'k')).toBeUndefined();
  });
});

describe('callers, at their edges', () => {
  it('opens a value sealed by an earlier run with the same secret: the key is derived the same way', () => {
    const cipher = new SessionCipher('a-session-secret-of-32-characters!');
    expect(cipher.open('YUIcDgEYQkccfRe0MhpkZiH81XWEjSD-eI66kB_OlVECEPos6Gjf', 'session:abc')).toBe(
      '{"u":"ann"}',
    );
  });

  it('counts sign-ins without an address against the user only', async () => {
    const limiter = new SignInLimiter({ perUser: 5, perAddress: 2, windowMs: 10_000 }, () => 0);
    await fail(limiter, 'a', null);
    await fail(limiter, 'b', null);
    await fail(limiter, 'c', null);
    expect(await waitOf(limiter, 'd', null)).toBe(0);
  });

  it('starts a new window with a failure at or after the end of the last one', async () => {
    let now = 0;
    const limiter = new SignInLimiter({ perUser: 2, perAddress: 100, windowMs: 10_000 }, () => now);
    await fail(limiter, 'u', null);
    await fail(limiter, 'u', null);
    expect(await waitOf(limiter, 'u', null)).toBe(10);
    now = 10_000;
    await fail(limiter, 'u', null);
    await fail(limiter, 'u', null);
    expect(await waitOf(limiter, 'u', null)).toBe(10);
    now = 25_000;
    await fail(limiter, 'u', null);
    await fail(limiter, 'u', null);
    expect(await waitOf(limiter, 'u', null)).toBe(10);
  });

  it('reads the operation name of a GET, one operation beside fragments, and refuses a PUT of JSON', async () => {
    const url = new URL('http://gateway.test/graphql');
    url.searchParams.set('query', 'query A { viewer { name } } mutation B { signOut }');
    url.searchParams.set('operationName', 'B');
    expect(await requestedOperation(new Request(url), url)).toMatchObject({
      name: 'B',
      type: 'mutation',
    });
    const post = (method: string, body: unknown) =>
      new Request('http://gateway.test/graphql', {
        method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const withFragment = 'query { viewer { name } } fragment F on Query { viewer { name } }';
    expect(await requestedOperation(post('POST', { query: withFragment }), url)).toMatchObject({
      fields: [{ name: 'viewer' }],
    });
    expect(
      await requestedOperation(post('PUT', { query: '{ viewer { name } }' }), url),
    ).toBeUndefined();
    const exactly = `{ viewer { name } }`.padEnd(65_536, ' ');
    expect(await requestedOperation(post('POST', { query: exactly }), url)).toMatchObject({
      fields: [{ name: 'viewer' }],
    });
    expect(await requestedOperation(post('POST', { query: `${exactly} ` }), url)).toBeUndefined();
  });
});

describe('Authenticator with an identity provider', () => {
  const issuer = 'https://idp.test/realms/unit';
  const audience = 'vmw-graphql-gateway';
  let jwks: JwksServer | undefined;
  afterEach(async () => {
    await jwks?.close();
    jwks = undefined;
  });

  it('takes a valid JWT for its name, the scopes it knows and its expiry, and refuses a bad one with the reason', async () => {
    const key = await signingKey('ES256', 'k1');
    jwks = await startJwksServer([key.jwk]);
    const jwt = { jwksUrl: new URL(jwks.url), issuer, audience };
    const authenticator = new Authenticator(config({ jwt }), sessionStore());
    expect(authenticator.required).toBe(true);
    const exp = epochSeconds() + 600;
    const token = await signJwt(
      key.privateKey,
      { alg: 'ES256', kid: 'k1' },
      {
        iss: issuer,
        aud: audience,
        sub: 's-1',
        preferred_username: 'ann',
        scope: 'read admin workflow:run',
        exp,
      },
    );
    expect(await authenticator.resolve(request({ authorization: `Bearer ${token}` }))).toEqual({
      kind: 'caller',
      caller: {
        name: 'ann',
        via: 'jwt',
        scopes: new Set(['read', 'workflow:run']),
        expiresAt: exp * 1000,
      },
    });
    const other = await signJwt(
      key.privateKey,
      { alg: 'ES256', kid: 'k1' },
      { iss: 'https://elsewhere.test', aud: audience, sub: 's-1', exp },
    );
    const refused = await authenticator.resolve(request({ authorization: `Bearer ${other}` }));
    expect(refused.kind).toBe('refused');
    expect(refused).not.toEqual({
      kind: 'refused',
      reason:
        'A valid gateway bearer token or identity-provider JWT is required (Authorization: Bearer <token>).',
    });
    // a token that is no JWT is looked for among the gateway tokens
    expect(
      await authenticator.resolve(request({ authorization: 'Bearer not-a-jwt' })),
    ).toMatchObject({ kind: 'refused' });
  });

  it('looks for no JWT when none is configured: a JWT-shaped token is an unknown gateway token', async () => {
    const authenticator = new Authenticator(
      config({ tokens: [{ name: 'ci', token: 'aaa.bbb.ccc', scopes: ['read'] }] }),
      sessionStore(),
    );
    expect(
      await authenticator.resolve(request({ authorization: 'Bearer aaa.bbb.ccc' })),
    ).toMatchObject({ kind: 'caller', caller: { name: 'ci', via: 'token' } });
  });
});
