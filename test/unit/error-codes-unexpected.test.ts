import { GraphQLError, parse, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { contractCodeOf, withCodes } from '../../src/plugins/error-codes.ts';

const args = { document: parse('{ a b }') } as unknown as ExecutionArgs;

describe('the error mapper, given an error without extensions', () => {
  it('makes a bare RangeError that field’s masked INTERNAL_SERVER_ERROR and keeps the sibling data', () => {
    const result = {
      data: { a: null, b: 'kept' },
      errors: [new RangeError('Maximum call stack size exceeded') as unknown as GraphQLError],
    } satisfies ExecutionResult;
    const coded = withCodes(result, args);
    expect(coded).not.toBe(false);
    if (coded === false) return;
    expect(coded.data).toEqual({ a: null, b: 'kept' });
    expect(coded.errors?.[0]).toBeInstanceOf(GraphQLError);
    expect(coded.errors?.[0]?.message).toBe('Unexpected error.');
    expect(coded.errors?.[0]?.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
  });

  it('names the code of an error whose extensions are missing without throwing', () => {
    const bare = { message: 'x' } as unknown as GraphQLError;
    expect(contractCodeOf(bare)).toBe('INTERNAL_SERVER_ERROR');
  });
});
