import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  isIdempotent,
  isRetryableStatus,
  retryAfterMs,
} from '../../src/http/retry-policy.ts';

const now = Date.parse('2026-11-25T12:00:00Z');

describe('Retry-After', () => {
  it('reads delta-seconds, surrounding whitespace allowed', () => {
    expect(retryAfterMs('0', now)).toBe(0);
    expect(retryAfterMs('1', now)).toBe(1000);
    expect(retryAfterMs(' 30 ', now)).toBe(30_000);
  });

  it('reads an HTTP date as the time left until it', () => {
    expect(retryAfterMs('Wed, 25 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 25 Nov 2026 12:01:00 GMT', now)).toBe(60_000);
  });

  it('reads the obsolete RFC 850 date form too', () => {
    expect(retryAfterMs('Wednesday, 25-Nov-26 12:00:10 GMT', now)).toBe(10_000);
  });

  it('reads an HTTP date already past as no wait at all', () => {
    expect(retryAfterMs('Wed, 25 Nov 2026 11:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('Thu, 01 Jan 1970 00:00:00 GMT', now)).toBe(0);
  });

  it('ignores an absent, empty or unreadable header', () => {
    for (const header of [
      undefined,
      '',
      '   ',
      'soon',
      '-5',
      '1.5',
      '2026-11-25T12:00:05Z',
      'Wed, 25 Nov 2026 12:00:05',
      'Wed, 32 Nov 2026 12:00:05 GMT',
    ]) {
      expect(retryAfterMs(header, now), JSON.stringify(header)).toBeUndefined();
    }
  });
});

describe('backoff', () => {
  const policy = { baseDelayMs: 100, maxDelayMs: 1000 };

  it('doubles the ceiling with each retry, up to maxDelayMs', () => {
    const ceiling = (attempt: number) => backoffMs(policy, attempt, () => 1);
    expect([1, 2, 3, 4, 5, 10].map(ceiling)).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('draws a full jitter from zero to the ceiling', () => {
    expect(backoffMs(policy, 3, () => 0)).toBe(0);
    expect(backoffMs(policy, 3, () => 0.5)).toBe(200);
  });
});

describe('what is retried', () => {
  it('retries only reads', () => {
    expect(isIdempotent('GET')).toBe(true);
    expect(isIdempotent('HEAD')).toBe(true);
    for (const method of ['POST', 'PUT', 'DELETE'] as const)
      expect(isIdempotent(method)).toBe(false);
  });

  it('retries 429 and 502 to 504, and no other status', () => {
    expect([429, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 404, 409, 412, 500, 501, 505].some(isRetryableStatus)).toBe(false);
  });
});
