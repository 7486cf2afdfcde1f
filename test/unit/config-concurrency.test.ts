import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('upstream concurrency settings', () => {
  it('adapts the limit by default, between 4 and a ceiling of 256 calls per upstream', () => {
    const { resilience } = loadConfig({});
    expect(resilience).toMatchObject({ maxConcurrent: 256, minConcurrent: 4, maxQueue: 256 });
  });

  it('keeps a fixed cap of UPSTREAM_MAX_CONCURRENCY when UPSTREAM_ADAPTIVE_CONCURRENCY is false', () => {
    const { resilience } = loadConfig({
      UPSTREAM_ADAPTIVE_CONCURRENCY: 'false',
      UPSTREAM_MAX_CONCURRENCY: '32',
    });
    expect(resilience.maxConcurrent).toBe(32);
    expect(resilience.minConcurrent).toBeUndefined();
  });

  it('lowers the default floor to a ceiling below it', () => {
    expect(loadConfig({ UPSTREAM_MAX_CONCURRENCY: '2' }).resilience.minConcurrent).toBe(2);
  });

  it('refuses a floor above the ceiling, naming UPSTREAM_MIN_CONCURRENCY', () => {
    expect(() =>
      loadConfig({ UPSTREAM_MIN_CONCURRENCY: '40', UPSTREAM_MAX_CONCURRENCY: '32' }),
    ).toThrow(/^UPSTREAM_MIN_CONCURRENCY .*above UPSTREAM_MAX_CONCURRENCY/);
  });

  it.each([
    ['UPSTREAM_ADAPTIVE_CONCURRENCY', 'sometimes'],
    ['UPSTREAM_MIN_CONCURRENCY', '0'],
    ['UPSTREAM_MAX_CONCURRENCY', '0'],
  ])('stops on a bad %s and names it', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(`^${variable} `));
  });
});
