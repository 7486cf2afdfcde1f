import { createHash, type Hash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { credentialKey } from '../../src/credentials.ts';

const digest = (value: string) =>
  `user:${createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 32)}`;

describe('credentialKey', () => {
  it("is 'service' for the gateway's own account and a digest of a user's credential, never the credential", () => {
    expect(credentialKey(undefined)).toBe('service');
    const key = credentialKey('Bearer secret-token-1');
    expect(key).toBe(digest('Bearer secret-token-1'));
    expect(key).not.toContain('secret');
  });

  it('tells credentials apart, and keeps telling them apart past the keys it remembers', () => {
    const first = credentialKey('Basic first');
    const keys = new Set<string>();
    for (let n = 0; n < 3000; n += 1) keys.add(credentialKey(`Bearer token-${n}`));
    expect(keys.size).toBe(3000);
    // the first was forgotten long ago: asked again, it is the same key
    expect(credentialKey('Basic first')).toBe(first);
    expect(credentialKey('Bearer token-2999')).toBe(digest('Bearer token-2999'));
  });

  it('hashes a credential once, however often its key is asked for', () => {
    const hashed = vi.spyOn(Object.getPrototypeOf(createHash('sha256')) as Hash, 'update');
    try {
      for (let n = 0; n < 100; n += 1) credentialKey('Basic asked-often');
      expect(hashed.mock.calls.filter(([data]) => data === 'Basic asked-often')).toHaveLength(1);
    } finally {
      hashed.mockRestore();
    }
  });
});
