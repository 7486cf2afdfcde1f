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

describe('the size of a JSON value, to the character', () => {
  // a small bound, so that each case sits right on it (restored after each case)
  const within = (maxLength: number, value: unknown): string | undefined => {
    const limits = jsonLimits as { maxLength: number };
    const kept = limits.maxLength;
    limits.maxLength = maxLength;
    try {
      return jsonBoundsProblem(value);
    } finally {
      limits.maxLength = kept;
    }
  };
  const fits = (size: number, value: unknown): void => {
    expect(within(size, value), `fits in ${size}`).toBeUndefined();
    expect(within(size - 1, value), `not in ${size - 1}`).toBe(
      `a JSON value larger than ${size - 1} characters`,
    );
  };

  it('counts a string with its quotes, a number or bigint as 24, a boolean as 5, null as 4', () => {
    fits(5, 'abc');
    fits(24, 7);
    fits(24, 10n);
    fits(5, true);
    fits(5, false);
    fits(4, null);
    expect(within(0, undefined)).toBeUndefined();
  });

  it('counts an array as its brackets, a comma per member, and its members', () => {
    fits(2, []);
    fits(2 + 3 + 24 + 5 + 4, [1, false, null]);
    fits(2 + 2 + 2 + (2 + 1) + 5, [[], ['abc']]);
  });

  it('counts an object as its braces, a comma per member, each key quoted with its colon, and the values', () => {
    expect(within(2, {})).toBeUndefined();
    fits(2 + 1 + (1 + 3) + 24, { a: 1 });
    fits(2 + 2 + (2 + 3) + 5 + (3 + 3) + 3, { ab: true, cde: 'x' });
  });

  it('stops at the first member past the bound, even of members that add nothing themselves', () => {
    // 2 + 3 for the array, then each empty object adds 2: the array alone passes a bound of 4
    expect(within(4, [{}, {}, {}])).toBe('a JSON value larger than 4 characters');
    expect(within(4, { abcdef: undefined })).toBe('a JSON value larger than 4 characters');
    // a key that ends right on the bound, and one past it before a value that is not checked itself
    fits(2 + 1 + (6 + 3), { abcdef: undefined });
    expect(within(11, { abcdef: {} })).toBe('a JSON value larger than 11 characters');
  });
});

describe('values measured as an upstream answer', () => {
  it('passes scalars and null through, marking only objects as measured', () => {
    expect(upstreamJson('vro', 'text')).toBe('text');
    expect(upstreamJson('vra', null)).toBeNull();
    expect(upstreamJson('nsx', 3)).toBe(3);
    const value = { a: [1] };
    expect(isMeasured(value)).toBe(false);
    expect(upstreamJson('vro', value)).toBe(value);
    expect(isMeasured(value)).toBe(true);
    expect(isMeasured(value.a)).toBe(false);
    expect(isMeasured(null)).toBe(false);
    expect(isMeasured('text')).toBe(false);
  });

  it('refuses a value out of bounds as a bad answer of the service, naming the problem', () => {
    let caught: unknown;
    try {
      upstreamJson('vra', nested(65));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UpstreamBadResponseError);
    expect((caught as Error).message).toContain('a JSON value nested deeper than 64 levels');
  });
});
