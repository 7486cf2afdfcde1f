import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionCipher } from '../../src/auth/session-crypto.ts';
import { redactSecrets } from '../../src/http/redact.ts';
import {
  SessionStore,
  SessionStoreUnavailableError,
  type Session,
  type SessionStoreOptions,
} from '../../src/auth/session-store.ts';
import { MemoryRedis } from '../helpers/memory-store.ts';

const secret = 'unit-test-session-secret-0123456789abcdef';
const otherSecret = 'another-session-secret-of-another-gateway!!';
const hour = 60 * 60 * 1000;

function session(overrides: Partial<Session> = {}): Session {
  return {
    username: 'dba@vsphere.local',
    tenant: 'vsphere.local',
    vraToken: 'MTU4NjQ0NTc0NjYzMzo5YjVhYTQ2ZDljOTk0ZTk0ZTc2Yjp0ZW5hbnQ6dnNwaGVyZS5sb2NhbA',
    expiresAt: Date.now() + hour,
    ...overrides,
  };
}

/** The store key of a cookie, as the gateway makes it: the digest of the SHA-256 digest of the cookie. */
function keyOf(redis: MemoryRedis, cookie: string): string {
  const digest = createHash('sha256').update(cookie, 'utf8').digest('base64url');
  return redis.store('key-maker').key('session', digest);
}

const opened: SessionStore[] = [];
function store(options: SessionStoreOptions = {}): SessionStore {
  const created = new SessionStore(options);
  opened.push(created);
  return created;
}

afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

describe('SessionStore without a remote store', () => {
  it('answers a cookie of 256 random bits, 43 base64url characters, another each time', async () => {
    const sessions = store();
    const cookies = await Promise.all(Array.from({ length: 20 }, () => sessions.create(session())));
    for (const cookie of cookies) expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(cookies).size).toBe(cookies.length);
  });

  it('answers the session of a cookie, and nothing for an unknown cookie', async () => {
    const sessions = store();
    const state = session();
    const cookie = await sessions.create(state);
    expect(await sessions.get(cookie)).toEqual(state);
    const other = session({ username: 'developer@vsphere.local', vraToken: 'developer-token' });
    const otherCookie = await sessions.create(other);
    expect(await sessions.get(otherCookie)).toEqual(other);
    expect(await sessions.get(cookie)).toEqual(state);
    expect(await sessions.get('x'.repeat(43))).toBeUndefined();
    expect(await sessions.get('')).toBeUndefined();
  });

  it('forgets an ended session, and only that one', async () => {
    const sessions = store();
    const cookie = await sessions.create(session());
    const kept = await sessions.create(session({ vraToken: 'kept-token' }));
    await sessions.end(cookie);
    expect(await sessions.get(cookie)).toBeUndefined();
    expect((await sessions.get(kept))?.vraToken).toBe('kept-token');
    // Ending twice, or an unknown cookie, is harmless.
    await sessions.end(cookie);
    await sessions.end('unknown');
  });

  it('forgets a session once its vRA token has expired, for good', async () => {
    let now = 1_000_000;
    const sessions = store({ now: () => now });
    const cookie = await sessions.create(session({ expiresAt: now + 60_000 }));
    now += 59_999;
    expect(await sessions.get(cookie)).toBeDefined();
    now += 1;
    expect(await sessions.get(cookie)).toBeUndefined();
    // Gone, not hidden: the clock going back does not bring it back.
    now -= 30_000;
    expect(await sessions.get(cookie)).toBeUndefined();
  });

  it('refuses a remote store without a secret', () => {
    expect(() => new SessionStore({ remote: new MemoryRedis().store('a') })).toThrow(/secret/);
  });
});

describe('SessionStore over a shared remote store', () => {
  it('keeps under a digest of the cookie a sealed value holding neither the cookie nor the token', async () => {
    const redis = new MemoryRedis();
    const state = session();
    const cookie = await store({ remote: redis.store('a'), secret }).create(state);
    expect([...redis.values.keys()]).toEqual([keyOf(redis, cookie)]);
    const entries = [...redis.values.entries()];
    expect(entries).toHaveLength(1);
    const [key, entry] = entries[0]!;
    for (const text of [key, entry.value]) {
      expect(text).not.toContain(cookie);
      expect(text).not.toContain(state.vraToken);
      expect(text).not.toContain(state.username);
      expect(text).not.toContain(state.tenant);
      expect(text).not.toContain(Buffer.from(state.vraToken).toString('base64'));
      expect(text).not.toContain(Buffer.from(state.vraToken).toString('base64url'));
    }
    // The value is the session sealed with SESSION_SECRET for this key, and nothing else opens it.
    const plain = new SessionCipher(secret).open(entry.value, key);
    expect(JSON.parse(plain ?? 'null')).toEqual(state);
    expect(new SessionCipher(otherSecret).open(entry.value, key)).toBeUndefined();
  });

  it('keeps it in the remote store only until the vRA token expires', async () => {
    const redis = new MemoryRedis();
    const before = Date.now();
    await store({ remote: redis.store('a'), secret }).create(session({ expiresAt: before + hour }));
    const [entry] = [...redis.values.values()];
    expect(entry?.expiresAt).toBeGreaterThanOrEqual(before + hour - 1000);
    expect(entry?.expiresAt).toBeLessThanOrEqual(Date.now() + hour);
  });

  it('lets a second store over the same remote find the session', async () => {
    const redis = new MemoryRedis();
    const state = session();
    const cookie = await store({ remote: redis.store('a'), secret }).create(state);
    const replica = store({ remote: redis.store('b'), secret });
    expect(await replica.get(cookie)).toEqual(state);
    // Its copy is not trusted while the remote store cannot be asked: it may have ended elsewhere.
    redis.up = false;
    await expect(replica.get(cookie)).rejects.toBeInstanceOf(SessionStoreUnavailableError);
    redis.up = true;
    expect(await replica.get(cookie)).toEqual(state);
  });

  it('does not let a store with another secret open the session, nor spoil it for the others', async () => {
    const redis = new MemoryRedis();
    const state = session();
    const cookie = await store({ remote: redis.store('a'), secret }).create(state);
    expect(
      await store({ remote: redis.store('b'), secret: otherSecret }).get(cookie),
    ).toBeUndefined();
    expect(await store({ remote: redis.store('c'), secret }).get(cookie)).toEqual(state);
  });

  it("does not open a value moved under another session's key (the key is bound in)", async () => {
    const redis = new MemoryRedis();
    const origin = store({ remote: redis.store('a'), secret });
    const mine = session({ username: 'developer@vsphere.local', vraToken: 'developer-token' });
    const theirs = session({ username: 'dba@vsphere.local', vraToken: 'dba-token' });
    const myCookie = await origin.create(mine);
    const theirCookie = await origin.create(theirs);
    const myKey = keyOf(redis, myCookie);
    const theirKey = keyOf(redis, theirCookie);
    expect(await store({ remote: redis.store('b'), secret }).get(myCookie)).toEqual(mine);
    // Someone with write access to Redis copies the dba's value under the developer's key.
    const stolen = redis.values.get(theirKey);
    if (stolen === undefined) throw new Error('no value under the dba session key');
    redis.values.set(myKey, { ...stolen });
    expect(await store({ remote: redis.store('c'), secret }).get(myCookie)).toBeUndefined();
    // The value itself is intact: under its own key it still opens.
    expect(await store({ remote: redis.store('d'), secret }).get(theirCookie)).toEqual(theirs);
  });

  it('does not take a sealed value that is not a session', async () => {
    const redis = new MemoryRedis();
    const cookie = await store({ remote: redis.store('a'), secret }).create(session());
    const key = keyOf(redis, cookie);
    const cipher = new SessionCipher(secret);
    for (const plain of ['{"username":"dba@vsphere.local"}', '[]', 'null', '42']) {
      redis.values.set(key, { value: cipher.seal(plain, key), expiresAt: Date.now() + hour });
      expect(await store({ remote: redis.store('b'), secret }).get(cookie), plain).toBeUndefined();
    }
  });

  it('ends a session on every store: deleted remotely, and announced so that the others drop their copy', async () => {
    const redis = new MemoryRedis();
    const messages: string[] = [];
    const spy = redis.store('spy');
    spy.subscribe(spy.key('session-ended'), (message) => messages.push(message));
    const state = session();
    const a = store({ remote: redis.store('a'), secret });
    const b = store({ remote: redis.store('b'), secret });
    const cookie = await a.create(state);
    const other = await a.create(session({ vraToken: 'other-token' }));
    expect(await b.get(cookie)).toEqual(state);
    expect(await b.get(other)).toBeDefined();

    await a.end(cookie);
    expect(redis.values.has(keyOf(redis, cookie))).toBe(false);
    // b held its own copy: only the message can have told it.
    expect(await b.get(cookie)).toBeUndefined();
    expect(await a.get(cookie)).toBeUndefined();
    expect(await b.get(other)).toBeDefined();
    expect(messages).toHaveLength(1);
    expect(messages[0]).not.toContain(cookie);
    expect(messages[0]).not.toContain(state.vraToken);
  });

  it('refuses on another store a session whose end was never announced to it (the announcement lost)', async () => {
    const redis = new MemoryRedis();
    const remoteA = redis.store('a');
    const a = store({ remote: remoteA, secret });
    const b = store({ remote: redis.store('b'), secret });
    const state = session();
    const cookie = await a.create(state);
    expect(await b.get(cookie)).toEqual(state);
    remoteA.publish = () => Promise.reject(new Error('Connection is closed.'));
    await a.end(cookie);
    expect(redis.values.has(keyOf(redis, cookie))).toBe(false);
    // b held its own copy and was told nothing: Redis, asked each time, says it has ended.
    expect(await b.get(cookie)).toBeUndefined();
  });

  it('does not start a session the remote store does not confirm holding', async () => {
    const redis = new MemoryRedis();
    const remoteA = redis.store('a');
    const a = store({ remote: remoteA, secret });
    remoteA.set = () => Promise.reject(new Error('Command timed out'));
    await expect(a.create(session())).rejects.toBeInstanceOf(SessionStoreUnavailableError);
    expect(redis.values.size).toBe(0);
  });
});

describe('SessionStore while the remote store is down', () => {
  // The RemoteStore contract: callers go on with their local state, never fail for it.
  it('does not claim to end a session it cannot delete remotely, forgets it locally, and ends it when asked again', async () => {
    const redis = new MemoryRedis();
    const sessions = store({ remote: redis.store('a'), secret });
    const other = store({ remote: redis.store('b'), secret });
    const cookie = await sessions.create(session());
    expect(await other.get(cookie)).toBeDefined();
    redis.up = false;
    await expect(sessions.end(cookie)).rejects.toBeInstanceOf(SessionStoreUnavailableError);
    expect(await sessions.get(cookie)).toBeUndefined();
    await expect(other.get(cookie)).rejects.toBeInstanceOf(SessionStoreUnavailableError);
    redis.up = true;
    // Not ended everywhere: the other store still has it, which is why end() failed.
    expect(await other.get(cookie)).toBeDefined();
    await sessions.end(cookie);
    expect(await other.get(cookie)).toBeUndefined();
  });

  it('does not claim to end a session when the delete is lost mid-way (sent, never answered)', async () => {
    const redis = new MemoryRedis();
    const remoteA = redis.store('a');
    const sessions = store({ remote: remoteA, secret });
    const cookie = await sessions.create(session());
    const deleteOf = remoteA.delete.bind(remoteA);
    remoteA.delete = async (key) => {
      await deleteOf(key);
      throw new Error('Command timed out');
    };
    await expect(sessions.end(cookie)).rejects.toBeInstanceOf(SessionStoreUnavailableError);
  });

  it('answers nothing, without failing, for a session that expired while the remote is down', async () => {
    let now = Date.now();
    const redis = new MemoryRedis();
    const sessions = store({ remote: redis.store('a'), secret, now: () => now });
    const cookie = await sessions.create(session({ expiresAt: now + 60_000 }));
    redis.up = false;
    now += 60_000;
    await expect(sessions.get(cookie)).resolves.toBeUndefined();
  });
});

describe('SessionStore at its edges', () => {
  it('cannot tell the session of a cookie it does not hold while the remote store is down, or while a read fails', async () => {
    const redis = new MemoryRedis();
    const cookie = await store({ remote: redis.store('a'), secret }).create(session());
    const other = store({ remote: redis.store('b'), secret });
    redis.up = false;
    const refused = await other.get(cookie).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SessionStoreUnavailableError);
    expect(refused).toMatchObject({
      name: 'SessionStoreUnavailableError',
      message: 'Sessions cannot be checked right now: the shared session store is unavailable.',
    });
    redis.up = true;
    // reachable, but the read itself fails
    const failing = redis.store('c');
    failing.get = () => Promise.reject(new Error('read failed'));
    const reading = store({ remote: failing, secret });
    await expect(reading.get(cookie)).rejects.toBeInstanceOf(SessionStoreUnavailableError);
    expect(await other.get(cookie)).toBeDefined();
  });

  it('answers nothing for a cookie the remote store has never heard of', async () => {
    const redis = new MemoryRedis();
    await store({ remote: redis.store('a'), secret }).create(session());
    expect(await store({ remote: redis.store('b'), secret }).get('y'.repeat(43))).toBeUndefined();
  });

  it('takes as a session only a value with every field of the right type', async () => {
    const redis = new MemoryRedis();
    const state = session();
    const cookie = await store({ remote: redis.store('a'), secret }).create(state);
    const key = keyOf(redis, cookie);
    const cipher = new SessionCipher(secret);
    const fields = ['username', 'tenant', 'vraToken', 'expiresAt'] as const;
    for (const field of fields) {
      for (const wrong of [undefined, field === 'expiresAt' ? String(state.expiresAt) : 7]) {
        const plain = JSON.stringify({ ...state, [field]: wrong });
        redis.values.set(key, { value: cipher.seal(plain, key), expiresAt: Date.now() + hour });
        expect(
          await store({ remote: redis.store('b'), secret }).get(cookie),
          plain,
        ).toBeUndefined();
      }
    }
    redis.values.set(key, {
      value: cipher.seal(JSON.stringify(state), key),
      expiresAt: Date.now() + hour,
    });
    expect(await store({ remote: redis.store('b'), secret }).get(cookie)).toEqual(state);
  });

  it('knows a session ended on another store as ended, even once the remote store is down', async () => {
    const redis = new MemoryRedis();
    const a = store({ remote: redis.store('a'), secret });
    const b = store({ remote: redis.store('b'), secret });
    const cookie = await a.create(session());
    expect(await b.get(cookie)).toBeDefined();
    await a.end(cookie);
    redis.up = false;
    // told by the announcement: no need to ask the remote store, which cannot answer now
    await expect(b.get(cookie)).resolves.toBeUndefined();
  });

  it('forgets every session it holds when closed, and their tokens stop being secrets', async () => {
    const sessions = new SessionStore();
    const state = session({ vraToken: 'closing-token-0123456789' });
    const cookie = await sessions.create(state);
    expect(redactSecrets(`sent ${state.vraToken}`)).not.toContain(state.vraToken);
    sessions.close();
    expect(await sessions.get(cookie)).toBeUndefined();
    expect(redactSecrets(`sent ${state.vraToken}`)).toContain(state.vraToken);
  });

  it('lets an expired session go, and its token stop being a secret, when another one starts', async () => {
    let now = Date.now();
    const sessions = store({ now: () => now });
    const expiring = session({ vraToken: 'expiring-token-0123456789', expiresAt: now + 1000 });
    const lasting = session({ vraToken: 'lasting-token-0123456789', expiresAt: now + hour });
    await sessions.create(expiring);
    const kept = await sessions.create(lasting);
    expect(redactSecrets(expiring.vraToken)).not.toContain(expiring.vraToken);
    now += 1000;
    await sessions.create(session({ vraToken: 'third-token-0123456789', expiresAt: now + hour }));
    expect(redactSecrets(expiring.vraToken)).toContain(expiring.vraToken);
    expect(redactSecrets(lasting.vraToken)).not.toContain(lasting.vraToken);
    expect(await sessions.get(kept)).toEqual(lasting);
  });
});
