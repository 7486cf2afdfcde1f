import { describe, expect, it } from 'vitest';
import { redact, redactSecrets, registerSecrets } from '../../src/http/redact.ts';
import { createLogger } from '../../src/observability/logger.ts';

const baseUrl = new URL('https://vro.example:8281/vco/api');
const basic = `Basic ${Buffer.from('svc:pa55-word').toString('base64')}`;

describe('redact', () => {
  it('takes out the Authorization value, its credential and a Basic password', () => {
    const credential = basic.slice(6);
    expect(
      redact(`got ${basic}; raw ${credential}; password pa55-word`, {
        authorization: basic,
        baseUrl,
      }),
    ).toBe('got [redacted]; raw [redacted]; password [redacted]');
  });

  it('takes out any Basic or Bearer value, known or not', () => {
    expect(redact('Authorization: Bearer abc.def-ghi and basic Zm9vOmJhcg==', { baseUrl })).toBe(
      'Authorization: Bearer [redacted] and basic [redacted]',
    );
  });

  it("takes out the upstream's origin and host, and the secrets named", () => {
    expect(
      redact('see https://vro.example:8281/vco/api/x or vro.example:8281; hunter22', {
        baseUrl,
        secrets: ['hunter22'],
      }),
    ).toBe('see [redacted]/vco/api/x or [redacted]; [redacted]');
  });

  it('takes out a secret with a lone surrogate (no URL form exists) without throwing', () => {
    const secret = '>rc-b7-Wo6O\ud800';
    expect(redactSecrets(`said ${secret} and ${JSON.stringify(secret)}`, [secret])).toBe(
      'said [redacted] and "[redacted]"',
    );
  });

  it('leaves an ordinary message as it is', () => {
    expect(redact("Workflow 'Test01' is older than 9.0.0", { authorization: basic, baseUrl })).toBe(
      "Workflow 'Test01' is older than 9.0.0",
    );
  });
});

describe('redact, in every encoding', () => {
  const password = 'Pa"ss\\wd-9 +/=<é>&\'😀';
  const login = JSON.stringify({ username: 'svc', password, tenant: 't' });
  const sensitive = { baseUrl, secrets: [password] };
  const shifted = (prefix: string) => Buffer.from(`${prefix}${password}-more`).toString('base64');

  it.each([
    ['as is', password],
    ['JSON-escaped', JSON.stringify(password)],
    ['JSON-escaped inside a JSON login body', login],
    ['JSON-escaped twice', JSON.stringify(login)],
    [
      'with \\u escapes',
      JSON.stringify(password).replace(
        /[^\x20-\x7e]|[<>&'"]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      ),
    ],
    [
      'XML-escaped',
      password
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&apos;'),
    ],
    [
      'as numeric character references',
      Array.from(password, (c) => `&#x${c.codePointAt(0)?.toString(16)};`).join(''),
    ],
    ['URL-encoded with %20', encodeURIComponent(password)],
    ['URL-encoded with +', encodeURIComponent(password).replace(/%20/g, '+')],
    ['URL-encoded twice', encodeURIComponent(encodeURIComponent(password))],
    ['in base64', Buffer.from(password).toString('base64')],
    ['in base64url', Buffer.from(password).toString('base64url')],
    ['in a Basic credential', Buffer.from(`svc:${password}`).toString('base64')],
    ['in a base64 login body', Buffer.from(login).toString('base64')],
    ['inside a longer base64 at offset 0', shifted('')],
    ['inside a longer base64 at offset 1', shifted('a')],
    ['inside a longer base64 at offset 2', shifted('ab')],
  ])('takes out a password %s', (_how, form) => {
    const out = redact(`refused: ${form} (end)`, sensitive);
    expect(out).toContain('[redacted]');
    expect(out).not.toContain(form);
    expect(out).toMatch(/^refused: /);
    expect(out).toMatch(/ \(end\)$/);
    for (const run of out.match(/[A-Za-z0-9+/_-]{4,}/g) ?? []) {
      for (let offset = 0; offset < 4; offset += 1) {
        expect(Buffer.from(run.slice(offset), 'base64').includes(Buffer.from(password))).toBe(
          false,
        );
      }
    }
  });

  it('takes out secrets registered for the process, until they are released', () => {
    const release = registerSecrets(['Gw-T0ken-unit', undefined, 'abc']);
    expect(redactSecrets('token Gw-T0ken-unit, Gw%2DT0ken-unit; abc')).toBe(
      'token [redacted], [redacted]; abc',
    );
    expect(redact('x R3ctoken-unit', { baseUrl })).toBe('x R3ctoken-unit');
    release();
    expect(redactSecrets('token Gw-T0ken-unit')).toBe('token Gw-T0ken-unit');
  });

  it('keeps a value registered twice until both release it', () => {
    const first = registerSecrets(['shared-secret']);
    const second = registerSecrets(['shared-secret']);
    first();
    first();
    expect(redactSecrets('shared-secret')).toBe('[redacted]');
    second();
    expect(redactSecrets('shared-secret')).toBe('shared-secret');
  });

  it('keeps a JSON line valid when a match starts right after an escape', () => {
    const release = registerSecrets(['nope-1234']);
    const line = JSON.stringify({ msg: '\nope-1234 and nope-1234' });
    const out = redactSecrets(line);
    expect(() => JSON.parse(out) as unknown).not.toThrow();
    expect(out).not.toContain('nope-1234');
    release();
  });
});

describe('the logger', () => {
  it('takes every registered secret out of each line, in any encoding', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) });
    const release = registerSecrets(['L0g"sec\\ret']);
    logger.info(
      { said: `as is L0g"sec\\ret, url ${encodeURIComponent('L0g"sec\\ret')}` },
      Buffer.from('L0g"sec\\ret').toString('base64'),
    );
    release();
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/L0g|sec/);
    expect((JSON.parse(lines[0] ?? '') as { msg: string }).msg).toMatch(/^\[redacted\]/);
  });
});
