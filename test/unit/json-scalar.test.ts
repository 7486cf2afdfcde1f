import { parseValue as parseGraphQLValue } from 'graphql';
import { describe, expect, it } from 'vitest';
import { BadUserInputError } from '../../src/errors.ts';
import { upstreamJson } from '../../src/json-bounds.ts';
import { JSONScalar } from '../../src/resolvers/scalars.ts';
import { nestedArrays } from '../helpers/deep-values.ts';

describe('the JSON scalar', () => {
  it('refuses an input nested deeper than 64 levels, as a variable or inline, as BAD_USER_INPUT', () => {
    expect(JSONScalar.parseValue(nestedArrays(64))).toEqual(nestedArrays(64));
    expect(() => JSONScalar.parseValue(nestedArrays(65))).toThrow(
      new BadUserInputError('Refused a JSON value nested deeper than 64 levels.'),
    );
    const inline = parseGraphQLValue('['.repeat(65) + ']'.repeat(65));
    expect(() => JSONScalar.parseLiteral(inline, {})).toThrow(BadUserInputError);
  });

  it('writes a value that upstreamJson measured as it is, without walking it again', () => {
    const value = upstreamJson('vro', { a: [1, 'two'] });
    expect(JSONScalar.serialize(value)).toBe(value);
  });

  it('refuses to write any other value out of bounds, with UPSTREAM_BAD_RESPONSE', () => {
    expect(() => JSONScalar.serialize(nestedArrays(100_000))).toThrow(
      expect.objectContaining({
        message: 'An upstream sent a JSON value nested deeper than 64 levels.',
        extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
      }),
    );
    expect(() => JSONScalar.serialize('x'.repeat(9 * 1024 * 1024))).toThrow(/larger than/);
    expect(JSONScalar.serialize({ ok: true })).toEqual({ ok: true });
  });
});
