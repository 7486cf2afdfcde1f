import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SessionCipher } from '../../src/auth/session-crypto.ts';
import { keyDigest } from '../../src/cache/remote-store.ts';
import { ConfigError, loadConfig, type Env } from '../../src/config.ts';
import type { GatewayConfig } from '../../src/gateway-config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createGateway, type Gateway } from '../../src/server.ts';
import { startNsxSimulator, type NsxSimulator } from '../../simulators/nsx/v/index.ts';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startVraSimulator, type VraSimulator } from '../../simulators/vra/v7/index.ts';
import { startVroSimulator, type VroSimulator } from '../../simulators/vro/index.ts';
import { findRedisServer, startRedis, type TestRedis } from '../helpers/redis.ts';
import { spawnGateway } from '../helpers/spawn-gateway.ts';
import { startTcpProxy, type CutPoint, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { listen, memoryAuditLog, simulatorsEnv } from '../helpers/stack.ts';
import { bearerOf, tokenRequests, tokensPath } from '../helpers/vra.ts';

// Several gateways in this process over one set of simulators and one real
// redis-server, all with the same REDIS_URL and SESSION_SECRET: a person signed
// in on one replica is signed in on all of them, and signed out of all of them.

const redisServer = findRedisServer();
if (redisServer === undefined) {
  console.warn(
    'SKIPPED test/integration/replicas-sessions-redis.test.ts (Redis part): redis-server is not ' +
      'installed (apt-get install redis-server; .ci/run installs it)',
  );
}

const dba = { username: 'dba@vsphere.local', password: 'dba-simulator' };
const developer = { username: 'developer@vsphere.local', password: 'developer-simulator' };
const secret = `replicas-session-secret-${randomBytes(16).toString('hex')}`;
const otherSecret = `another-session-secret-${randomBytes(16).toString('hex')}`;
const keyPrefix = 'vmw-gateway:';

interface Replica {
  gateway: Gateway;
  url: string;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  body: { data?: any; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
  setCookies: string[];
}

let redis: TestRedis;
let vro: VroSimulator;
let vra: VraSimulator;
let nsx: NsxSimulator;
const started: Replica[] = [];

function env(extra: Env = {}): Env {
  return {
    ...simulatorsEnv({ vro, vra, nsx }),
    ...extra,
  };
}

/** A gateway of this process served on a loopback port, once it sees Redis up. */
async function startReplica(sessionSecret = secret, redisUrl = redis.url): Promise<Replica> {
  const base = loadConfig(env({ REDIS_URL: redisUrl, SESSION_SECRET: sessionSecret }));
  const config: GatewayConfig = {
    ...base,
    vro: { ...base.vro, url: vro.url },
    vra: { ...base.vra, url: vra.url },
    nsx: { ...base.nsx, url: nsx.url },
  };
  const gateway = createGateway(config, {
    logger: createLogger('silent'),
    audit: memoryAuditLog([]),
  });
  const http = await listen(gateway);
  let closed = false;
  const replica: Replica = {
    gateway,
    url: http.url,
    async close() {
      if (closed) return;
      closed = true;
      await http.close();
      await gateway.close();
    },
  };
  started.push(replica);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ready = (await (await fetch(`${replica.url}/ready`)).json()) as { redis?: string };
    if (ready.redis === 'up') return replica;
    if (Date.now() > deadline) throw new Error(`redis is ${String(ready.redis)} for a replica`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function gql(
  replica: Replica,
  query: string,
  variables: Record<string, unknown> = {},
  cookie?: string,
): Promise<Answer> {
  const response = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-graphql-csrf': '1',
      ...(cookie === undefined ? {} : { cookie: `gateway_session=${cookie}` }),
    },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Answer['body'],
    setCookies: response.headers.getSetCookie(),
  };
}

const signInMutation =
  'mutation($u: String!, $p: String!, $t: String) { signIn(username: $u, password: $p, tenant: $t) { name via } }';
const asUser = '{ viewer { name via tenant } entitledCatalogItems(first: 20) { nodes { name } } }';
const userOnly = '{ entitledCatalogItems(first: 20) { nodes { name } } }';

/** Signs in on a replica: the cookie it set and the vRA token vRA issued for it. */
async function signIn(
  replica: Replica,
  user: { username: string; password: string },
): Promise<{ cookie: string; token: string; answer: Answer }> {
  const before = new Set(vra.issuedTokens());
  const answer = await gql(replica, signInMutation, {
    u: user.username,
    p: user.password,
    t: vra.tenant,
  });
  expect(answer.body.errors).toBeUndefined();
  expect(answer.body.data.signIn).toEqual({ name: user.username, via: 'SESSION' });
  const setCookie = answer.setCookies.find((c) => c.startsWith('gateway_session='));
  if (setCookie === undefined)
    throw new Error(`signIn set no session cookie: ${answer.setCookies.join(', ')}`);
  expect(setCookie).toMatch(/;\s*HttpOnly/i);
  expect(setCookie).toMatch(/;\s*SameSite=Strict/i);
  expect(setCookie).toMatch(/;\s*Path=\/(;|$)/i);
  const cookie = /^gateway_session=([^;]*)/.exec(setCookie)?.[1] ?? '';
  expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const issued = vra
    .issuedTokens()
    .filter((t) => !before.has(t) && vra.tokenUser(t) === user.username);
  expect(issued).toHaveLength(1);
  const token = issued[0]!;
  expect(JSON.stringify(answer.body)).not.toContain(token);
  return { cookie, token, answer };
}

/** The requests vRA received while `action` ran. */
async function vraRequestsDuring(action: () => Promise<void>): Promise<RecordedRequest[]> {
  const before = vra.requests.length;
  await action();
  return vra.requests.slice(before);
}

/** Where a session is kept in Redis: a digest of the SHA-256 digest of the cookie, under the prefix. */
function sessionKey(cookie: string): string {
  const digest = createHash('sha256').update(cookie, 'utf8').digest('base64url');
  return `${keyPrefix}session:${keyDigest([digest])}`;
}

/** Every key of the test's Redis with every value it holds, whatever the type. */
async function everything(): Promise<Array<{ key: string; values: string[] }>> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.client.scan(cursor, 'MATCH', '*', 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return Promise.all(
    keys.map(async (key) => {
      const type = await redis.client.type(key);
      const values =
        type === 'string'
          ? [(await redis.client.get(key)) ?? '']
          : type === 'hash'
            ? Object.entries(await redis.client.hgetall(key)).flat()
            : type === 'list'
              ? await redis.client.lrange(key, 0, -1)
              : type === 'set'
                ? await redis.client.smembers(key)
                : type === 'zset'
                  ? await redis.client.zrange(key, '0', '-1')
                  : [`(a ${type})`];
      return { key, values };
    }),
  );
}

function expectRefusedSession(answer: Answer): void {
  expect(answer.status).toBe(401);
  expect(answer.body.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
  expect(answer.body.data ?? null).toBeNull();
  // The browser is told to forget the cookie.
  expect(answer.setCookies.some((c) => /^gateway_session=;/.test(c))).toBe(true);
}

describe.skipIf(redisServer === undefined)('sessions shared by replicas through Redis', () => {
  let a: Replica;
  let b: Replica;
  let c: Replica;

  beforeAll(async () => {
    redis = await startRedis(redisServer ?? 'redis-server');
    [vro, vra, nsx] = await Promise.all([
      startVroSimulator(),
      startVraSimulator(),
      startNsxSimulator(),
    ]);
    [a, b, c] = await Promise.all([startReplica(), startReplica(), startReplica()]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((replica) => replica.close()));
    await Promise.all([redis.close(), vro.close(), vra.close(), nsx.close()]);
  });

  it('signs in on replica A and acts with the user’s own vRA token on replica B', async () => {
    const { cookie, token } = await signIn(a, dba);
    let answer: Answer | undefined;
    const received = await vraRequestsDuring(async () => {
      answer = await gql(b, asUser, {}, cookie);
    });
    expect(answer?.status).toBe(200);
    expect(answer?.body.errors).toBeUndefined();
    expect(answer?.body.data.viewer).toEqual({
      name: dba.username,
      via: 'SESSION',
      tenant: vra.tenant,
    });
    const names = (answer?.body.data.entitledCatalogItems.nodes as Array<{ name: string }>).map(
      (n) => n.name,
    );
    // The dba's own entitlements: the Oracle item is theirs, Windows is not.
    expect(names).toContain('Oracle Database (restricted)');
    expect(names).not.toContain('Windows Server 2019');
    // B called vRA with the dba's bearer, and did not sign in again.
    const catalog = received.filter((r) => r.path.startsWith('/catalog-service/api/consumer/'));
    expect(catalog.length).toBeGreaterThan(0);
    for (const request of catalog) {
      expect(request.headers.authorization).toBe(`Bearer ${token}`);
      expect(vra.tokenUser(bearerOf(request) ?? '')).toBe(dba.username);
    }
    expect(received.filter((r) => r.method === 'POST' && r.path === tokensPath)).toEqual([]);
  });

  it('keeps the session through a restart of the replica that made it', async () => {
    const { cookie, token } = await signIn(a, dba);
    expect((await gql(a, asUser, {}, cookie)).body.data.viewer.name).toBe(dba.username);
    await a.close();
    a = await startReplica();
    let answer: Answer | undefined;
    const received = await vraRequestsDuring(async () => {
      answer = await gql(a, asUser, {}, cookie);
    });
    expect(answer?.body.errors).toBeUndefined();
    expect(answer?.body.data.viewer).toMatchObject({ name: dba.username, via: 'SESSION' });
    const catalog = received.filter((r) => r.path.startsWith('/catalog-service/api/consumer/'));
    expect(catalog.length).toBeGreaterThan(0);
    for (const request of catalog) expect(bearerOf(request)).toBe(token);
  });

  it('ends the session on every replica when it signs out on one, and deletes the vRA token', async () => {
    const { cookie, token } = await signIn(a, dba);
    // Every replica holds its own copy of the session before B ends it.
    for (const replica of [a, b, c]) {
      const answer = await gql(replica, asUser, {}, cookie);
      expect(answer.body.errors).toBeUndefined();
      expect(answer.body.data.viewer.name).toBe(dba.username);
    }
    expect(await redis.client.exists(sessionKey(cookie))).toBe(1);

    const signOut = await gql(b, 'mutation { signOut }', {}, cookie);
    expect(signOut.body).toEqual({ data: { signOut: true } });
    expect(signOut.setCookies.some((v) => /^gateway_session=;/.test(v))).toBe(true);
    const deletes = vra.requestsTo('DELETE', `${tokensPath}/${token}`);
    expect(deletes).toHaveLength(1);
    expect(bearerOf(deletes[0])).toBe(token);
    expect(vra.tokenUser(token)).toBeUndefined();
    expect(await redis.client.exists(sessionKey(cookie))).toBe(0);
    // The announcement leaves B with its answer: a few ms let it reach the other replicas.
    await new Promise((resolve) => setTimeout(resolve, 50));

    const received = await vraRequestsDuring(async () => {
      for (const replica of [a, c, b])
        expectRefusedSession(await gql(replica, userOnly, {}, cookie));
    });
    // Refused by the gateways themselves: none of them still tried the revoked token.
    expect(received).toEqual([]);
    // Who-am-I still answers, as nobody.
    const viewer = await gql(c, '{ viewer { name } }', {}, cookie);
    expect(viewer.status).toBe(200);
    expect(viewer.body).toEqual({ data: { viewer: null } });
  });

  it('keeps in Redis neither the cookie, the vRA token, the user name nor the password', async () => {
    const { cookie, token } = await signIn(b, developer);
    expect((await gql(c, asUser, {}, cookie)).body.data.viewer.name).toBe(developer.username);
    await gql(c, '{ providerByName(name: "iaas-service") { name } }', {}, cookie);

    const stored = await everything();
    const key = sessionKey(cookie);
    expect(stored.map((s) => s.key)).toContain(key);
    for (const { key: k, values } of stored) {
      for (const text of [k, ...values]) {
        for (const secretText of [cookie, token, developer.username, developer.password]) {
          if (text.includes(secretText)) {
            throw new Error(`Redis holds "${secretText}" in ${k}`);
          }
        }
      }
    }
    // The session's value: sealed for its key with SESSION_SECRET, expiring with the vRA token.
    const value = (await redis.client.get(key)) ?? '';
    const opened: unknown = JSON.parse(new SessionCipher(secret).open(value, key) ?? 'null');
    expect(opened).toMatchObject({
      username: developer.username,
      tenant: vra.tenant,
      vraToken: token,
    });
    const ttl = await redis.client.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(24 * 60 * 60 * 1000);
    // Another SESSION_SECRET does not open it, nor does the right one for another key.
    expect(new SessionCipher(otherSecret).open(value, key)).toBeUndefined();
    expect(new SessionCipher(secret).open(value, `${key}x`)).toBeUndefined();
  });

  it('refuses the cookie on a replica with another SESSION_SECRET, and leaves the session to the others', async () => {
    const { cookie } = await signIn(a, developer);
    const stranger = await startReplica(otherSecret);
    try {
      const received = await vraRequestsDuring(async () => {
        expectRefusedSession(await gql(stranger, userOnly, {}, cookie));
      });
      expect(received).toEqual([]);
      expect((await gql(stranger, '{ viewer { name } }', {}, cookie)).body).toEqual({
        data: { viewer: null },
      });
    } finally {
      await stranger.close();
    }
    expect(await redis.client.exists(sessionKey(cookie))).toBe(1);
    const fresh = await startReplica();
    const answer = await gql(fresh, asUser, {}, cookie);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.viewer.name).toBe(developer.username);
    await fresh.close();
  });

  it('asks vRA for the user token once per sign-in, whichever replica serves afterwards', async () => {
    const before = tokenRequests(vra).length;
    const { cookie } = await signIn(c, developer);
    for (const replica of [a, b, c, a, b, c]) {
      expect((await gql(replica, asUser, {}, cookie)).body.errors).toBeUndefined();
    }
    const asked = tokenRequests(vra)
      .slice(before)
      .filter((r) => r.body.toString('utf8').includes(developer.username));
    expect(asked).toHaveLength(1);
  });

  describe('while Redis is stopped or hung', () => {
    let stopped = false;

    /** Waits (polling, up to 10 s) until every replica says what it thinks of Redis. */
    async function untilRedisIs(state: 'up' | 'unavailable'): Promise<void> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const states = await Promise.all(
          [a, b, c].map(
            async (r) =>
              ((await (await fetch(`${r.url}/ready`)).json()) as { redis?: string }).redis,
          ),
        );
        if (states.every((s) => s === state)) return;
        if (Date.now() > deadline) throw new Error(`redis states: ${states.join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }

    async function stopRedis(): Promise<void> {
      await redis.stop();
      stopped = true;
      await untilRedisIs('unavailable');
    }

    afterEach(async () => {
      redis.resume();
      if (stopped) {
        stopped = false;
        await redis.restart();
      }
      await untilRedisIs('up');
    }, 20_000);

    it('does not claim to sign out while Redis is stopped (UPSTREAM_UNAVAILABLE, cookie kept), yet deletes the vRA token it holds', async () => {
      const { cookie, token } = await signIn(a, dba);
      for (const replica of [a, b]) {
        expect((await gql(replica, asUser, {}, cookie)).body.errors).toBeUndefined();
      }
      await stopRedis();
      const signOut = await gql(b, 'mutation { signOut }', {}, cookie);
      expect(signOut.body.data ?? null).toBeNull();
      expect(signOut.body.errors?.[0]?.extensions).toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        retryAfter: 5,
      });
      // Kept, so that signing out can be tried again.
      expect(signOut.setCookies.some((v) => /^gateway_session=/.test(v))).toBe(false);
      expect(vra.requestsTo('DELETE', `${tokensPath}/${token}`)).toHaveLength(1);
      expect(vra.tokenUser(token)).toBeUndefined();
      // No replica accepts the cookie: B has forgotten it, the others cannot ask Redis.
      expectRefusedSession(await gql(b, userOnly, {}, cookie));
      for (const replica of [a, c]) {
        const answer = await gql(replica, userOnly, {}, cookie);
        expect(answer.status).toBe(503);
        expect(answer.body.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
      }
    }, 30_000);

    it('signs in while Redis is stopped: a session on that replica, or a clean refusal leaving no vRA token', async () => {
      await stopRedis();
      const before = new Set(vra.issuedTokens());
      const answer = await gql(a, signInMutation, {
        u: developer.username,
        p: developer.password,
        t: vra.tenant,
      });
      const live = vra
        .issuedTokens()
        .filter((t) => !before.has(t) && vra.tokenUser(t) === developer.username);
      expect(answer.status, JSON.stringify(answer.body)).not.toBe(500);
      if (answer.body.errors === undefined) {
        // The replica keeps the session to itself until Redis is back.
        const cookie = /^gateway_session=([^;]+)/.exec(
          answer.setCookies.find((v) => v.startsWith('gateway_session=')) ?? '',
        )?.[1];
        expect(cookie).toBeDefined();
        const viewer = await gql(a, asUser, {}, cookie);
        expect(viewer.body.errors).toBeUndefined();
        expect(viewer.body.data.viewer.name).toBe(developer.username);
      } else {
        expect(answer.body.errors[0]?.extensions?.['code']).not.toBe('INTERNAL_SERVER_ERROR');
        expect(answer.setCookies.filter((v) => /^gateway_session=[^;]/.test(v))).toEqual([]);
        // A token nobody holds a cookie for must not stay valid at vRA.
        expect(live).toEqual([]);
      }
    }, 30_000);

    it('answers a cookie this replica does not hold, while Redis hangs, without an internal error or a stack trace', async () => {
      const { cookie } = await signIn(a, developer);
      redis.pause();
      const started = Date.now();
      const response = await fetch(`${c.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-graphql-csrf': '1',
          cookie: `gateway_session=${cookie}`,
        },
        body: JSON.stringify({ query: asUser }),
      });
      const text = await response.text();
      expect(Date.now() - started).toBeLessThan(3000);
      expect(text).not.toMatch(/node_modules|ioredis|Command timed out|\n\s+at /);
      expect(response.headers.get('content-type') ?? '').toMatch(/json/);
      expect(response.status, text).not.toBe(500);
    }, 30_000);
  });

  describe('signing out while the replicas lose Redis (a relay between them and Redis, cut)', () => {
    let relay: TcpProxy;
    let x: Replica;
    let y: Replica;

    beforeAll(async () => {
      relay = await startTcpProxy(redis.port);
      const through = `redis://127.0.0.1:${relay.port}`;
      [x, y] = await Promise.all([startReplica(secret, through), startReplica(secret, through)]);
    }, 30_000);

    afterAll(async () => {
      await Promise.all([x.close(), y.close()]);
      await relay.close();
    });

    async function until(state: 'up' | 'unavailable'): Promise<void> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const states = await Promise.all(
          [x, y].map(
            async (r) =>
              ((await (await fetch(`${r.url}/ready`)).json()) as { redis?: string }).redis,
          ),
        );
        if (states.every((s) => s === state)) return;
        if (Date.now() > deadline) throw new Error(`redis states: ${states.join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    afterEach(async () => {
      relay.restore();
      await until('up');
    }, 20_000);

    /** Signed in on X, and used on both replicas: each holds its own copy of the session. */
    async function signedInOnBoth(): Promise<{ cookie: string; token: string }> {
      const { cookie, token } = await signIn(x, dba);
      for (const replica of [x, y]) {
        const answer = await gql(replica, asUser, {}, cookie);
        expect(answer.body.errors).toBeUndefined();
        expect(answer.body.data.viewer.name).toBe(dba.username);
      }
      return { cookie, token };
    }

    function expectUnavailable(answer: Answer): void {
      expect(answer.body.data ?? null).toBeNull();
      expect(answer.body.errors?.[0]?.extensions).toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        retryAfter: 5,
      });
      expect(answer.setCookies.some((v) => /^gateway_session=/.test(v))).toBe(false);
    }

    /** Once Redis is back, neither replica accepts the cookie, nor calls vRA for it. */
    async function expectEndedOnBoth(cookie: string): Promise<void> {
      relay.restore();
      await until('up');
      expect(await redis.client.exists(sessionKey(cookie))).toBe(0);
      const received = await vraRequestsDuring(async () => {
        for (const replica of [y, x, y, x]) {
          expectRefusedSession(await gql(replica, userOnly, {}, cookie));
        }
      });
      expect(received).toEqual([]);
    }

    it('answers UPSTREAM_UNAVAILABLE, not true, to a signOut while Redis is unreachable; once it is back, signing out again ends it on both', async () => {
      const { cookie, token } = await signedInOnBoth();
      relay.cut();
      await until('unavailable');
      const signOut = await gql(x, 'mutation { signOut }', {}, cookie);
      expectUnavailable(signOut);
      // X revoked the vRA token of its copy all the same.
      expect(vra.tokenUser(token)).toBeUndefined();
      // While Redis is away neither replica accepts the cookie: X forgot it, Y cannot check it.
      expectRefusedSession(await gql(x, userOnly, {}, cookie));
      const unknown = await gql(y, userOnly, {}, cookie);
      expect(unknown.status).toBe(503);
      expect(unknown.body.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');

      relay.restore();
      await until('up');
      // Nothing was promised: Redis still holds the session, so signing out is asked again.
      expect(await redis.client.exists(sessionKey(cookie))).toBe(1);
      const again = await gql(x, 'mutation { signOut }', {}, cookie);
      expect(again.body.errors).toBeUndefined();
      // X had already let it go: no live session here, but it is ended everywhere now.
      expect(again.body.data).toEqual({ signOut: false });
      await expectEndedOnBoth(cookie);
    }, 30_000);

    const redisCommand = (name: string, needle: string) => (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      return text.toLowerCase().includes(`\r\n${name}\r\n`) && text.includes(needle);
    };

    it.each<[string, string, CutPoint, 'true' | 'UPSTREAM_UNAVAILABLE']>([
      ['the delete never reaches Redis', 'del', 'before', 'UPSTREAM_UNAVAILABLE'],
      ['Redis runs the delete but its answer is lost', 'del', 'reply', 'UPSTREAM_UNAVAILABLE'],
      ['the announcement to the other replica is lost', 'publish', 'before', 'true'],
    ])(
      'keeps its word when Redis is cut in the middle of a signOut (%s): true only if the cookie is then refused on both replicas',
      async (_, command, point, expected) => {
        const { cookie } = await signedInOnBoth();
        const digest = createHash('sha256').update(cookie, 'utf8').digest('base64url');
        const needle = command === 'del' ? sessionKey(cookie) : digest;
        const cutting = relay.cutWhen(redisCommand(command, needle), point);
        const signOut = await gql(y, 'mutation { signOut }', {}, cookie);
        await cutting;
        if (expected === 'true') {
          expect(signOut.body).toEqual({ data: { signOut: true } });
          expect(signOut.setCookies.some((v) => /^gateway_session=;/.test(v))).toBe(true);
          // X held a copy and heard nothing: only Redis can tell it the session has ended.
          await expectEndedOnBoth(cookie);
          return;
        }
        expectUnavailable(signOut);
        relay.restore();
        await until('up');
        // Where the cut fell: before the delete, Redis still holds the session; after, not.
        expect(await redis.client.exists(sessionKey(cookie))).toBe(point === 'before' ? 1 : 0);
        // Signing out again (from the replica that has not forgotten it) ends it on both.
        const again = await gql(x, 'mutation { signOut }', {}, cookie);
        expect(again.body.errors).toBeUndefined();
        await expectEndedOnBoth(cookie);
      },
      30_000,
    );

    it('keeps its word for two signOuts at once, one in a batch, on both replicas while Redis is cut under the first delete', async () => {
      const { cookie } = await signedInOnBoth();
      const cutting = relay.cutWhen(redisCommand('del', sessionKey(cookie)), 'reply');
      const batch = fetch(`${y.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-graphql-csrf': '1',
          cookie: `gateway_session=${cookie}`,
        },
        body: JSON.stringify([{ query: 'mutation { signOut }' }, { query: '{ viewer { name } }' }]),
      }).then(async (r) => (await r.json()) as Array<Answer['body']>);
      const [single, batched] = await Promise.all([
        gql(x, 'mutation { signOut }', {}, cookie),
        batch,
      ]);
      await cutting;
      const outcomes = [single.body, batched[0]!].map((body) =>
        body.data?.signOut === true ? 'true' : body.errors?.[0]?.extensions?.['code'],
      );
      for (const outcome of outcomes) {
        expect(['true', 'UPSTREAM_UNAVAILABLE', undefined]).toContain(outcome);
      }
      relay.restore();
      await until('up');
      if (outcomes.includes('true')) {
        await expectEndedOnBoth(cookie);
        return;
      }
      expect(await gql(x, 'mutation { signOut }', {}, cookie)).toMatchObject({ status: 200 });
      await expectEndedOnBoth(cookie);
    }, 30_000);
  });
});

describe('a replica with REDIS_URL and no SESSION_SECRET', () => {
  const redisUrl = 'redis://127.0.0.1:6390';

  it('does not load its configuration: the error names SESSION_SECRET', () => {
    let error: unknown;
    try {
      loadConfig({ REDIS_URL: redisUrl });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('SESSION_SECRET');
    expect((error as ConfigError).message).toMatch(/^SESSION_SECRET /);
    // Nor with a secret too short to key AES-256 from.
    expect(() => loadConfig({ REDIS_URL: redisUrl, SESSION_SECRET: 'x'.repeat(31) })).toThrow(
      /^SESSION_SECRET /,
    );
    expect(loadConfig({ REDIS_URL: redisUrl, SESSION_SECRET: 'x'.repeat(32) }).redis).toBeDefined();
  });

  it('does not start: the process exits with a configuration error naming SESSION_SECRET', async () => {
    const child = spawnGateway({ PORT: '0', REDIS_URL: redisUrl });
    try {
      expect(await child.exited).toBe(1);
      expect(child.stderr.join('\n')).toContain('SESSION_SECRET');
      expect(child.logs().some((line) => line.msg.startsWith('GraphQL gateway ready'))).toBe(false);
    } finally {
      child.kill();
    }
  }, 20_000);
});
