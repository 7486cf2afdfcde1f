import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const secret = 'a-session-secret-of-32-characters-or-more';

describe('REDIS_URL and REDIS_KEY_PREFIX', () => {
  it('keeps every replica to itself when REDIS_URL is unset', () => {
    expect(loadConfig({}).redis).toBeUndefined();
    expect(loadConfig({ REDIS_KEY_PREFIX: 'gw:' }).redis).toBeUndefined();
  });

  it('reads a Redis URL, with TLS, a password and a database number, and a key prefix', () => {
    expect(
      loadConfig({ REDIS_URL: 'redis://redis.example:6379', SESSION_SECRET: secret }).redis,
    ).toMatchObject({
      keyPrefix: 'vmw-gateway:',
    });
    const config = loadConfig({
      REDIS_URL: 'rediss://:s3cret@redis.example:6380/2',
      REDIS_KEY_PREFIX: 'prod-gw:',
      SESSION_SECRET: secret,
    });
    expect(config.redis?.url.protocol).toBe('rediss:');
    expect(config.redis?.url.host).toBe('redis.example:6380');
    expect(config.redis?.url.pathname).toBe('/2');
    expect(config.redis?.keyPrefix).toBe('prod-gw:');
  });

  it.each([
    ['REDIS_URL', 'not a url'],
    ['REDIS_URL', 'http://redis.example:6379'],
    ['REDIS_URL', 'redis://redis.example:6379/cache'],
    ['REDIS_URL', 'redis://redis.example:6379?db=1'],
    ['REDIS_URL', 'redis:///0'],
    ['REDIS_KEY_PREFIX', 'has space'],
    ['REDIS_KEY_PREFIX', 'x'.repeat(65)],
  ])('stops on a bad %s (%s) and names the variable', (variable, value) => {
    const env = { REDIS_URL: 'redis://redis.example', [variable]: value };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable} `));
  });

  it('never repeats the password of a refused REDIS_URL', () => {
    for (const url of ['redis://:hunter2-pw@redis.example/x', 'http://:hunter2-pw@redis.example']) {
      try {
        loadConfig({ REDIS_URL: url });
        expect.unreachable();
      } catch (error) {
        expect((error as Error).message).not.toContain('hunter2');
      }
    }
  });
});

describe('SESSION_SECRET', () => {
  it('is required with REDIS_URL: sessions kept in Redis are encrypted with it', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis://redis.example:6379' })).toThrow(
      /^SESSION_SECRET is required when REDIS_URL is set/,
    );
  });

  it('must be at least 32 characters', () => {
    expect(() =>
      loadConfig({ REDIS_URL: 'redis://redis.example:6379', SESSION_SECRET: 'short' }),
    ).toThrow(/^SESSION_SECRET must be at least 32 characters/);
  });
});
