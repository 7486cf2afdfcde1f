import { describe, expect, it } from 'vitest';
import { UpstreamBadResponseError } from '../../src/errors.ts';
import { isMeasured, jsonBoundsProblem, jsonLimits, upstreamJson } from '../../src/json-bounds.ts';
import { nestedArrays as nested } from '../helpers/deep-values.ts';

describe('the bounds of a JSON value', () => {
  it('accepts 64 levels of nesting and refuses 65', () => {
    expect(jsonLimits.maxDepth).toBe(64);
    expect(jsonBoundsProblem(nested(64))).toBeUndefined();
    expect(jsonBoundsProblem(nested(65))).toBe('a JSON value nested deeper than 64 levels');
    expect(jsonBoundsProblem({ a: { b: nested(63) } })).toBe(
      'a JSON value nested deeper than 64 levels',
    );
  });

  it('measures a value 100,000 levels deep without overflowing the stack', () => {
    expect(jsonBoundsProblem(nested(100_000))).toMatch(/nested deeper/);
  });

  it('refuses a value larger than 8 MiB written as JSON, counting strings, keys and members', () => {
    expect(jsonLimits.maxLength).toBe(8 * 1024 * 1024);
    expect(jsonBoundsProblem('x'.repeat(jsonLimits.maxLength - 2))).toBeUndefined();
    expect(jsonBoundsProblem('x'.repeat(jsonLimits.maxLength - 1))).toBe(
      'a JSON value larger than 8388608 characters',
    );
    expect(jsonBoundsProblem({ ['k'.repeat(jsonLimits.maxLength)]: 1 })).toMatch(/larger than/);
    expect(jsonBoundsProblem(new Array(jsonLimits.maxLength).fill(0))).toMatch(/larger than/);
  });

  it('stops on a cyclic value instead of walking it forever', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic['self'] = cyclic;
    expect(jsonBoundsProblem(cyclic)).toMatch(/nested deeper/);
  });

  it('accepts scalars and null as they are', () => {
    for (const value of [null, 0, -1.5, true, '', 'text']) {
      expect(jsonBoundsProblem(value)).toBeUndefined();
    }
  });

  it('names the upstream of a value out of bounds in an UPSTREAM_BAD_RESPONSE', () => {
    let failure: unknown;
    try {
      upstreamJson('nsx', nested(100));
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(UpstreamBadResponseError);
    expect(failure).toMatchObject({
      message:
        'The network manager (NSX) sent an unexpected answer: a JSON value nested deeper than 64 levels.',
      extensions: { code: 'UPSTREAM_BAD_RESPONSE', upstream: { service: 'nsx', status: null } },
    });
  });

  it('marks a value within bounds as measured, so that the JSON scalar does not walk it again', () => {
    const value = { a: [1, 2] };
    expect(isMeasured(value)).toBe(false);
    expect(upstreamJson('vro', value)).toBe(value);
    expect(isMeasured(value)).toBe(true);
    expect(isMeasured({ a: [1, 2] })).toBe(false);
  });
});
