import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as redactModule from '../../src/http/redact.ts';
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

describe('redact, form by form', () => {
  // A module of its own for each test: redact.ts keeps what it computed for
  // a character, a secret and a list of secrets, so that a test run after
  // another that used the same ones would not compute them again.
  let fresh: typeof redactModule;
  beforeEach(async () => {
    vi.resetModules();
    fresh = await import('../../src/http/redact.ts');
  });

  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const b64url = (text: string) => Buffer.from(text).toString('base64url');
  const xml = (text: string) =>
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;');

  it('lists the secrets of an Authorization value: the value, its credential, a Basic user:password and password', () => {
    expect(fresh.authorizationSecrets(undefined)).toEqual([]);
    expect(fresh.authorizationSecrets('Bearer abc.def')).toEqual(['Bearer abc.def', 'abc.def']);
    expect(fresh.authorizationSecrets('Bearer   spaced')).toEqual(['Bearer   spaced', 'spaced']);
    expect(fresh.authorizationSecrets('Token basic abcd')).toEqual([
      'Token basic abcd',
      'basic abcd',
    ]);
    const basicValue = `Basic ${b64('svc:pa55')}`;
    expect(fresh.authorizationSecrets(basicValue)).toEqual([
      basicValue,
      b64('svc:pa55'),
      'svc:pa55',
      'pa55',
    ]);
    const noUser = `basic ${b64(':pa55word')}`;
    expect(fresh.authorizationSecrets(noUser)).toEqual([
      noUser,
      b64(':pa55word'),
      ':pa55word',
      'pa55word',
    ]);
    const noColon = `BASIC ${b64('nocolon')}`;
    expect(fresh.authorizationSecrets(noColon)).toEqual([noColon, b64('nocolon'), 'nocolon']);
  });

  it('takes out the host only when it is 4 characters or more', () => {
    expect(fresh.redact('a cat at http://a/x', { baseUrl: new URL('http://a/') })).toBe(
      'a cat at [redacted]/x',
    );
    expect(fresh.redact('see abcd', { baseUrl: new URL('http://abcd/') })).toBe('see [redacted]');
  });

  it('takes out scheme values after any spaces or %20, of 4 characters or more, and no shorter ones', () => {
    expect(fresh.redact('Bearer   abcd; Basic%20%20wxyz', { baseUrl })).toBe(
      'Bearer [redacted]; Basic [redacted]',
    );
    expect(fresh.redact('Bearer abc and Negotiate-x and Digest: ok', { baseUrl })).toBe(
      'Bearer abc and Negotiate-x and Digest: ok',
    );
    expect(fresh.redact('bearer ab.c/d+e=f~g_h-ij, more', { baseUrl })).toBe(
      'bearer [redacted], more',
    );
  });

  it('does not take out a short password of the caller, nor part of a word for a shorter secret', () => {
    const authorization = `Basic ${b64('svc:ab')}`;
    expect(fresh.redact('a tab, a crab', { baseUrl, authorization })).toBe('a tab, a crab');
    expect(fresh.redactSecrets('nothing here', ['abc', ''])).toBe('nothing here');
  });

  it('registers only defined values of 4 characters or more', () => {
    const release = fresh.registerSecrets([undefined, 'ab', 'abcd']);
    expect(fresh.redactSecrets('x abcd ab')).toBe('x [redacted] ab');
    release();
    expect(fresh.redactSecrets('x abcd ab')).toBe('x abcd ab');
  });

  it('takes out the longest of overlapping secrets whole', () => {
    expect(fresh.redactSecrets('key abcdefgh.', ['abcd', 'abcdefgh'])).toBe('key [redacted].');
    expect(fresh.redactSecrets('key abcdefgh.', ['abcdefgh', 'abcd'])).toBe('key [redacted].');
  });

  it('finds a secret written plainly in a text with no escape at all', () => {
    expect(fresh.redactSecrets('the secret pa55w0rd here', ['pa55w0rd'])).toBe(
      'the secret [redacted] here',
    );
    const release = fresh.registerSecrets(['pl41nsecret']);
    expect(fresh.redactSecrets('see pl41nsecret')).toBe('see [redacted]');
    release();
  });

  it('tells two lists of secrets apart even when they join to the same text', () => {
    expect(fresh.redactSecrets('k=aaaab.', ['aaaa', 'bbbbb'])).toBe('k=[redacted]b.');
    expect(fresh.redactSecrets('k=aaaab.', ['aaaab', 'bbbb'])).toBe('k=[redacted].');
  });

  it("uses a secret registered after a call's own secrets were last seen", () => {
    expect(fresh.redactSecrets('x', ['0wn-secret'])).toBe('x');
    const release = fresh.registerSecrets(['l4te-secret']);
    expect(fresh.redactSecrets('l4te-secret 0wn-secret', ['0wn-secret'])).toBe(
      '[redacted] [redacted]',
    );
    release();
    expect(fresh.redactSecrets('l4te-secret 0wn-secret', ['0wn-secret'])).toBe(
      'l4te-secret [redacted]',
    );
  });

  it('keeps the escaped character of a match that starts after an odd run of backslashes', () => {
    expect(fresh.redactSecrets('\\nabcd', ['nabcd'])).toBe('\\n[redacted]');
    expect(fresh.redactSecrets('x\\nabcd', ['nabcd'])).toBe('x\\n[redacted]');
    expect(fresh.redactSecrets('x\\\\nabcd', ['nabcd'])).toBe('x\\\\[redacted]');
    expect(fresh.redactSecrets('x\\\\\\nabcd', ['nabcd'])).toBe('x\\\\\\n[redacted]');
  });

  const special = 'q"/\b\f\n\r\t\\&<>\'é 😀z';
  it.each([
    ['JSON short escapes', JSON.stringify(special).slice(1, -1)],
    ['JSON with an escaped slash', JSON.stringify(special).slice(1, -1).replace('/', '\\/')],
    [
      'JSON \\u escapes, any case',
      Array.from(special)
        .map((c) =>
          [...Array(c.length).keys()]
            .map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0').toUpperCase()}`)
            .join(''),
        )
        .join(''),
    ],
    ['JSON escaped twice', JSON.stringify(JSON.stringify(special).slice(1, -1)).slice(1, -1)],
    ['XML named entities', xml(special)],
    ['XML named entities escaped again', xml(xml(special))],
    [
      'decimal references',
      Array.from(special)
        .map((c) => `&#${c.codePointAt(0)};`)
        .join(''),
    ],
    [
      'decimal references with zeros',
      Array.from(special)
        .map((c) => `&#00${c.codePointAt(0)};`)
        .join(''),
    ],
    [
      'hexadecimal references, x or X, with zeros',
      Array.from(special)
        .map((c) => `&#X00${c.codePointAt(0)?.toString(16).toUpperCase()};`)
        .join(''),
    ],
    ['URL-encoded', encodeURIComponent(special)],
    [
      'URL-encoded in lower case',
      encodeURIComponent(special).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    ],
    ['URL-encoded, + for a space', encodeURIComponent(special).replace(/%20/g, '+')],
    ['URL-encoded twice', encodeURIComponent(encodeURIComponent(special))],
  ])('takes out a secret of every special character %s', (_how, form) => {
    expect(fresh.redactSecrets(`<${form}>`, [special])).toBe('<[redacted]>');
  });

  it('takes a character in no other form than its own', () => {
    expect(fresh.redactSecrets('&undefined;bcd a+cd a%2Bcd', ['abcd'])).toBe(
      '&undefined;bcd a+cd a%2Bcd',
    );
    expect(fresh.redactSecrets('&#97;bcd &#x61;bcd', ['abcd'])).toBe('[redacted] [redacted]');
  });

  it('finds base64 pieces at each alignment, of 4 characters and more', () => {
    for (const prefix of ['', 'x', 'xy', 'xyz']) {
      for (const suffix of ['', 'z', 'zz', 'zzz']) {
        const text = b64(`${prefix}abcd${suffix}`);
        expect(fresh.redactSecrets(`[${text}]`, ['abcd']), `${prefix}|${suffix}`).toMatch(
          /\[redacted\]/,
        );
        const out = fresh.redactSecrets(`[${text}]`, ['abcd']);
        expect(out).not.toBe(`[${text}]`);
      }
    }
    // "x" + "abcd" puts the secret at alignment 1: a piece of exactly 4 characters
    expect(fresh.redactSecrets(b64('xabcd'), ['abcd'])).toBe('eG[redacted]Q=');
  });

  it('finds the base64 of a secret in both alphabets, + and / as they are or escaped', () => {
    const secret = '>>>???~~~';
    for (const prefix of ['', 'a', 'ab']) {
      const standard = b64(`${prefix}${secret}.`);
      expect(standard).toMatch(/[+/]/);
      expect(fresh.redactSecrets(`[${standard}]`, [secret])).toMatch(/\[redacted\]/);
      expect(fresh.redactSecrets(`[${encodeURIComponent(standard)}]`, [secret])).toMatch(
        /\[redacted\]/,
      );
      const url = b64url(`${prefix}${secret}.`);
      expect(url).toMatch(/[-_]/);
      expect(fresh.redactSecrets(`[${url}]`, [secret])).toMatch(/\[redacted\]/);
    }
  });

  it('finds the base64 of the escaped forms of a secret inside a larger body', () => {
    const secret = 'p@ss word/"\\<&>\'x';
    const bodies = [
      JSON.stringify({ query: `user=${secret}&x` }),
      `<p>${xml(secret)}</p>`,
      `pw=${encodeURIComponent(secret)}&next=1`,
      `pw=${encodeURIComponent(secret).replace(/%20/g, '+')}&next=1`,
    ];
    for (const body of bodies) {
      for (const prefix of ['', 'a', 'ab']) {
        const text = b64(`${prefix}${body}`);
        const out = fresh.redactSecrets(text, [secret]);
        expect(out, body).toMatch(/\[redacted\]/);
      }
    }
  });

  it('searches no form that a lone surrogate cannot have', () => {
    const secret = 'ab\ud800cd';
    const replaced = Buffer.from(secret).toString('utf8');
    expect(fresh.redactSecrets(`x ${b64(replaced)} ab%EF%BF%BDcd`, [secret])).toBe(
      `x ${b64(replaced)} ab%EF%BF%BDcd`,
    );
    expect(fresh.redactSecrets(`x ${secret}`, [secret])).toBe('x [redacted]');
  });

  it('keeps working once more secret lists were seen than it keeps', () => {
    for (let i = 0; i < 70; i += 1) {
      expect(fresh.redactSecrets(`s3cret-${i} s3cret-0`, [`s3cret-${i}`])).toBe(
        i === 0 ? '[redacted] [redacted]' : '[redacted] s3cret-0',
      );
    }
    expect(fresh.redactSecrets('s3cret-0', ['s3cret-0'])).toBe('[redacted]');
  });
});
