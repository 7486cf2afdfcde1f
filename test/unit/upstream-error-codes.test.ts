import { describe, expect, it } from 'vitest';
import { codeForUpstreamAnswer, notTheCallers, UpstreamStatusError } from '../../src/errors.ts';

describe('codeForUpstreamAnswer', () => {
  it.each([
    [
      'an NSX duplicate name (400, 213)',
      'nsx',
      400,
      '213',
      'An IP set named a already exists.',
      'CONFLICT',
    ],
    ['an NSX concurrent access (409, 101)', 'nsx', 409, '101', 'revision mismatch', 'CONFLICT'],
    ['an NSX concurrent access sent as a 400 (101)', 'nsx', 400, '101', 'stale', 'CONFLICT'],
    [
      'an NSX invalid value (400, 210)',
      'nsx',
      400,
      '210',
      'Invalid action bounce.',
      'BAD_USER_INPUT',
    ],
    ['an NSX object in use (400, 220)', 'nsx', 400, '220', 'in use by rule 1004', 'BAD_USER_INPUT'],
    [
      'a vRO validation 400 (no code)',
      'vro',
      400,
      null,
      'has no input parameter "x"',
      'BAD_USER_INPUT',
    ],
    ['a vRO 400 naming a duplicate', 'vro', 400, null, 'Element already exists', 'CONFLICT'],
    ['a vRO older package (409)', 'vro', 409, null, 'older than 2.0.0', 'CONFLICT'],
    [
      'a vRA invalid argument (400, 10101)',
      'vra',
      400,
      '10101',
      'Invalid argument.',
      'BAD_USER_INPUT',
    ],
    [
      'a vRA invalid argument with another 4xx',
      'vra',
      405,
      '10101',
      'Invalid argument.',
      'BAD_USER_INPUT',
    ],
    ['an upload too large for the appliance (413)', 'vro', 413, null, null, 'BAD_USER_INPUT'],
    [
      'a method the appliance does not allow (405)',
      'nsx',
      405,
      '405',
      'not supported',
      'UPSTREAM_ERROR',
    ],
    ['a media type it does not take (415)', 'nsx', 415, '415', 'text/xml', 'UPSTREAM_ERROR'],
    [
      'a 500, even with an invalid-argument code',
      'vra',
      500,
      '10101',
      'Invalid argument.',
      'UPSTREAM_ERROR',
    ],
    ['a 500 that says duplicate', 'nsx', 500, '213', 'duplicate', 'UPSTREAM_ERROR'],
    ['a 401', 'vra', 401, '90135', 'Unable to authenticate', 'UNAUTHENTICATED'],
    ['a 403', 'nsx', 403, null, null, 'FORBIDDEN'],
    ['a 404', 'vro', 404, null, null, 'NOT_FOUND'],
    ['a 412', 'nsx', 412, null, null, 'CONFLICT'],
    ['a 503', 'vro', 503, null, null, 'UPSTREAM_UNAVAILABLE'],
  ] as const)('maps %s', (_what, service, status, code, message, expected) => {
    expect(codeForUpstreamAnswer(service, status, code, message)).toBe(expected);
  });

  it('keeps the upstream detail on a caller code', () => {
    const error = new UpstreamStatusError('nsx', 400, '213', 'An IP set named a already exists.');
    expect(error.extensions).toEqual({
      code: 'CONFLICT',
      upstream: {
        service: 'nsx',
        status: 400,
        code: '213',
        message: 'An IP set named a already exists.',
      },
    });
  });
});

describe('notTheCallers', () => {
  it('makes a caller code of a request the caller had no part in UPSTREAM_ERROR, keeping the detail', () => {
    const error = notTheCallers(new UpstreamStatusError('vra', 400, '10101', 'Invalid argument.'));
    expect(error).toBeInstanceOf(UpstreamStatusError);
    expect((error as UpstreamStatusError).extensions).toEqual({
      code: 'UPSTREAM_ERROR',
      upstream: { service: 'vra', status: 400, code: '10101', message: 'Invalid argument.' },
    });
  });

  it('leaves any other failure as it is', () => {
    const unauthenticated = new UpstreamStatusError('vra', 401, '90135', null);
    expect(notTheCallers(unauthenticated)).toBe(unauthenticated);
    const other = new Error('x');
    expect(notTheCallers(other)).toBe(other);
  });
});
