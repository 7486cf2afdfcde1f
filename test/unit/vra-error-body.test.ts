import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readVraErrorBody } from '../../src/upstreams/vra/v7/error-body.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/vra/${name}`, import.meta.url), 'utf8');

describe('readVraErrorBody', () => {
  it('takes the code as a string and the message of the first error', () => {
    expect(readVraErrorBody(fixture('error-catalog-item-not-found.json'))).toEqual({
      code: '20116',
      message:
        'Unable to find the specified catalog item in the service catalog: feaedf73-560c-4612-a573-0041667e0176.',
    });
  });

  it('uses message, never systemMessage', () => {
    expect(readVraErrorBody(fixture('error-invalid-resource.json'))).toEqual({
      code: '10101',
      message: 'Invalid argument.',
    });
    const login = readVraErrorBody(fixture('error-identity-token-auth-failed.json'));
    expect(login.code).toBe('90135');
    expect(login.message).not.toMatch(/^90135-/);
  });

  it('reads a body whose systemMessage is null', () => {
    expect(readVraErrorBody(fixture('error-system-exception.json'))).toEqual({
      code: '50505',
      message: 'System exception.',
    });
  });

  it.each([
    ['not JSON', '<html>Bad Gateway</html>'],
    ['an empty body', ''],
    ['no errors array', '{"message":"x"}'],
    ['an empty errors array', '{"errors":[]}'],
    ['a null entry', '{"errors":[null]}'],
  ])('answers nulls for %s', (_what, body) => {
    expect(readVraErrorBody(body)).toEqual({ code: null, message: null });
  });

  it('caps a very long message', () => {
    const body = JSON.stringify({ errors: [{ code: 1, message: 'x'.repeat(5000) }] });
    expect(readVraErrorBody(body).message).toHaveLength(500);
  });
});
