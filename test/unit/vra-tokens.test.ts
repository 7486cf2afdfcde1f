import { createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { redactSecrets } from '../../src/http/redact.ts';
import {
  credentialIdentity,
  renewMarginMs,
  TokenCache,
  type IssuedToken,
  type VraCredential,
} from '../../src/upstreams/vra/tokens.ts';

const service: VraCredential = { username: 'svc@vsphere.local', password: 's3cret', tenant: 'qe' };
const day = 24 * 60 * 60 * 1000;

/** A token cache on a fake clock whose issuer is answered by the test. */
function setup(lifetimeMs = day) {
  let now = 1_700_000_000_000;
  const issued: Array<{
    credential: VraCredential;
    resolve: (t: IssuedToken) => void;
    reject: (e: Error) => void;
  }> = [];
  let counter = 0;
  const cache = new TokenCache<string>({
    now: () => now,
    issue: (credential) =>
      new Promise<IssuedToken>((resolve, reject) => {
        issued.push({ credential, resolve, reject });
      }),
  });
  const answer = (index = issued.length - 1) => {
    const request = issued[index];
    if (request === undefined) throw new Error('no token request to answer');
    counter++;
    request.resolve({ id: `token-${counter}`, expiresAt: now + lifetimeMs });
  };
  return {
    cache,
    issued,
    answer,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('renewMarginMs', () => {
  it('renews a 24 h token 60 s before it expires', () => {
    expect(renewMarginMs(day)).toBe(60_000);
  });

  it('renews a short-lived token 10% of its lifetime ahead', () => {
    expect(renewMarginMs(10_000)).toBe(1_000);
  });
});

describe('TokenCache', () => {
  it('asks for no token until one is needed', () => {
    const { issued } = setup();
    expect(issued).toHaveLength(0);
  });

  it('makes one token request for 50 callers at once, and all get its token', async () => {
    const { cache, issued, answer } = setup();
    const waiting = Array.from({ length: 50 }, () => cache.token(service, 'call'));
    expect(issued).toHaveLength(1);
    answer();
    expect(new Set(await Promise.all(waiting))).toEqual(new Set(['token-1']));
  });

  it('reuses the token until the renewal margin before expires, then obtains a new one', async () => {
    const { cache, issued, answer, advance } = setup();
    const first = cache.token(service, 'call');
    answer();
    expect(await first).toBe('token-1');
    advance(day - 60_001);
    expect(await cache.token(service, 'call')).toBe('token-1');
    expect(issued).toHaveLength(1);
    advance(1);
    const renewed = cache.token(service, 'call');
    expect(issued).toHaveLength(2);
    answer();
    expect(await renewed).toBe('token-2');
  });

  it('obtains a new token once when several calls report the same rejected token', async () => {
    const { cache, issued, answer } = setup();
    const first = cache.token(service, 'call');
    answer();
    const stale = await first;
    const renewals = Array.from({ length: 10 }, () => {
      cache.reject(service, stale);
      return cache.token(service, 'call');
    });
    expect(issued).toHaveLength(2);
    answer();
    expect(new Set(await Promise.all(renewals))).toEqual(new Set(['token-2']));
  });

  it('keeps the new token when a late 401 reports the token it replaced', async () => {
    const { cache, issued, answer } = setup();
    const first = cache.token(service, 'call');
    answer();
    const stale = await first;
    cache.reject(service, stale);
    const second = cache.token(service, 'call');
    answer();
    expect(await second).toBe('token-2');
    cache.reject(service, stale);
    expect(await cache.token(service, 'call')).toBe('token-2');
    expect(issued).toHaveLength(2);
  });

  it('gives a failed login to every waiting caller and does not cache it', async () => {
    const { cache, issued, answer } = setup();
    const waiting = [cache.token(service, 'a'), cache.token(service, 'b')];
    issued[0]?.reject(new Error('login refused'));
    for (const result of await Promise.allSettled(waiting)) {
      expect(result.status).toBe('rejected');
    }
    const retry = cache.token(service, 'c');
    expect(issued).toHaveLength(2);
    answer();
    expect(await retry).toBe('token-1');
  });

  it('keeps one entry per credential, so a different password never gets a cached token', async () => {
    const { cache, issued, answer } = setup();
    const mine = cache.token(service, 'call');
    answer();
    await mine;
    const other = cache.token({ ...service, password: 'wrong' }, 'call');
    expect(issued).toHaveLength(2);
    expect(issued[1]?.credential.password).toBe('wrong');
    answer();
    expect(await other).toBe('token-2');
  });

  it('keys credentials without keeping the password', () => {
    const key = credentialIdentity(service);
    expect(key).not.toContain(service.password);
    expect(key).not.toContain(service.username);
    expect(credentialIdentity({ ...service })).toBe(key);
    expect(credentialIdentity({ ...service, tenant: 'other' })).not.toBe(key);
  });

  it('hashes a credential once, however many calls ask for its token', async () => {
    const { cache, answer } = setup();
    const account: VraCredential = { ...service, username: 'once@vsphere.local' };
    const hashed = vi.spyOn(
      Object.getPrototypeOf(createHmac('sha256', 'k')) as ReturnType<typeof createHmac>,
      'update',
    );
    try {
      const first = cache.token(account, 'call');
      answer();
      await first;
      for (let call = 0; call < 50; call += 1) await cache.token(account, 'call');
      cache.reject(account, 'token-0');
      const ofAccount = hashed.mock.calls.filter(
        ([data]) => typeof data === 'string' && data.includes(account.username),
      );
      expect(ofAccount).toHaveLength(1);
    } finally {
      hashed.mockRestore();
    }
  });

  it('renews a short-lived token 10% of its lifetime before it expires', async () => {
    const { cache, issued, answer, advance } = setup(10_000);
    const first = cache.token(service, 'call');
    answer();
    await first;
    advance(8_999);
    expect(await cache.token(service, 'call')).toBe('token-1');
    advance(1);
    void cache.token(service, 'call');
    expect(issued).toHaveLength(2);
  });
});

describe('TokenCache, the secrets it makes known', () => {
  /** A cache whose tokens are named after the test, so that no other test's registration hides a release. */
  function named(prefix: string) {
    let counter = 0;
    const cache = new TokenCache<string>({
      now: () => 1_700_000_000_000,
      issue: () => {
        counter++;
        return Promise.resolve({ id: `${prefix}-${counter}`, expiresAt: 1_700_000_000_000 + day });
      },
    });
    return cache;
  }

  it('makes each token a secret while it holds it, and forgets it once vRA rejects it', async () => {
    const cache = named('rejected');
    expect(await cache.token(service, 'ctx')).toBe('rejected-1');
    expect(redactSecrets('said rejected-1')).toBe('said [redacted]');
    cache.reject(service, 'other-token');
    expect(redactSecrets('said rejected-1')).toBe('said [redacted]');
    cache.reject(service, 'rejected-1');
    expect(redactSecrets('said rejected-1')).toBe('said rejected-1');
    expect(await cache.token(service, 'ctx')).toBe('rejected-2');
  });

  it('ignores a rejection for a credential it holds no token of', () => {
    const cache = named('none');
    expect(() => cache.reject({ ...service, username: 'nobody' }, 'none-1')).not.toThrow();
  });

  it('forgets every token on clear, and obtains a new one next time', async () => {
    const cache = named('cleared');
    const other: VraCredential = { ...service, username: 'other@vsphere.local' };
    expect(await cache.token(service, 'ctx')).toBe('cleared-1');
    expect(await cache.token(other, 'ctx')).toBe('cleared-2');
    expect(redactSecrets('cleared-1 cleared-2')).toBe('[redacted] [redacted]');
    cache.clear();
    expect(redactSecrets('cleared-1 cleared-2')).toBe('cleared-1 cleared-2');
    expect(await cache.token(service, 'ctx')).toBe('cleared-3');
    // a credential whose token was rejected holds none: clear passes over it
    cache.reject(service, 'cleared-3');
    expect(() => cache.clear()).not.toThrow();
  });
});
