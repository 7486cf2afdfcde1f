import { describe, expect, it } from 'vitest';
import { BadUserInputError } from '../../src/errors.ts';
import { path, queryString } from '../../src/http/path.ts';

describe('path', () => {
  it('keeps the literals and puts each value in its place, in order', () => {
    const id = 'wf-1';
    const run = 'run-2';
    expect(path`/workflows/${id}/executions/${run}/logs`).toBe(
      '/workflows/wf-1/executions/run-2/logs',
    );
    expect(path`${id}`).toBe('wf-1');
    expect(path`/plain`).toBe('/plain');
  });

  it('encodes a value as one segment: no slash, query, fragment or dot-segment escapes it', () => {
    const id = '../a/b?c=d#e f&g+h%';
    expect(path`/workflows/${id}`).toBe('/workflows/..%2Fa%2Fb%3Fc%3Dd%23e%20f%26g%2Bh%25');
  });

  it('encodes characters beyond ASCII as their UTF-8 bytes', () => {
    const name = 'é😀';
    expect(path`/x/${name}`).toBe('/x/%C3%A9%F0%9F%98%80');
  });

  it('refuses a value with an unpaired surrogate as bad input, naming the URL', () => {
    const lone = 'a\uD800b';
    expect(() => path`/x/${lone}`).toThrow(BadUserInputError);
    expect(() => path`/x/${lone}`).toThrow(/unpaired surrogate/);
  });

  it('takes an empty value as an empty segment', () => {
    const empty = '';
    expect(path`/a/${empty}/b`).toBe('/a//b');
  });
});

describe('queryString', () => {
  it('is empty for no query, an empty one or one of only undefined values', () => {
    expect(queryString(undefined)).toBe('');
    expect(queryString({})).toBe('');
    expect(queryString({ a: undefined })).toBe('');
  });

  it('starts with "?" and joins the pairs with "&", in order, leaving out undefined values', () => {
    expect(queryString({ a: '1', skip: undefined, b: 2, c: true, d: false })).toBe(
      '?a=1&b=2&c=true&d=false',
    );
  });

  it('encodes names and values, a space as %20 and never as +', () => {
    expect(queryString({ 'a b&c=': 'x y+z&w=v#' })).toBe('?a%20b%26c%3D=x%20y%2Bz%26w%3Dv%23');
  });

  it('keeps an empty string value and the number 0', () => {
    expect(queryString({ a: '', b: 0 })).toBe('?a=&b=0');
  });

  it('refuses an unpaired surrogate in a name or a value as bad input', () => {
    expect(() => queryString({ a: '\uDC00' })).toThrow(BadUserInputError);
    expect(() => queryString({ '\uD800': 'a' })).toThrow(BadUserInputError);
  });
});
