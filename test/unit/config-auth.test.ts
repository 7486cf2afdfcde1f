import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'config-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tokenFile(content: string): string {
  const file = join(dir, `tokens-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, content);
  return file;
}

describe('callers in the configuration', () => {
  it('gives people signed in the default session scopes, and every GATEWAY_TOKENS entry every scope', () => {
    const { auth } = loadConfig({ GATEWAY_TOKENS: 'first-token,second-token' });
    expect(auth.sessionScopes).toEqual(['catalog:request', 'read', 'workflow:run']);
    expect(auth.tokens.map((t) => [t.name, t.scopes.length])).toEqual([
      ['GATEWAY_TOKENS[1]', 6],
      ['GATEWAY_TOKENS[2]', 6],
    ]);
    expect(auth.audit).toBe('stdout');
    expect(auth.jwt).toBeUndefined();
  });

  it('reads a token file with names and scopes', () => {
    const file = tokenFile(
      JSON.stringify([{ name: ' dashboard ', token: 'a-read-only-token-123', scopes: ['read'] }]),
    );
    expect(loadConfig({ GATEWAY_TOKENS_FILE: file }).auth.tokens).toEqual([
      { name: 'dashboard', token: 'a-read-only-token-123', scopes: ['read'] },
    ]);
  });

  it.each([
    ['not JSON', '{', /must hold JSON/],
    ['not an array', '{}', /JSON array/],
    ['an entry without a name', '[{"token":"a-read-only-token-123","scopes":[]}]', /no "name"/],
    ['a short token', '[{"name":"x","token":"short","scopes":[]}]', /16 or more/],
    [
      'an unknown scope',
      '[{"name":"x","token":"a-read-only-token-123","scopes":["admin"]}]',
      /unknown scopes \(admin\)/,
    ],
    [
      'the same token twice',
      '[{"name":"a","token":"a-read-only-token-123","scopes":[]},{"name":"b","token":"a-read-only-token-123","scopes":[]}]',
      /same token twice/,
    ],
  ])(
    'stops start-up on a token file with %s, naming GATEWAY_TOKENS_FILE',
    (_, content, message) => {
      expect(() => loadConfig({ GATEWAY_TOKENS_FILE: tokenFile(content) })).toThrow(message);
      expect(() => loadConfig({ GATEWAY_TOKENS_FILE: tokenFile(content) })).toThrow(
        /^GATEWAY_TOKENS_FILE /,
      );
    },
  );

  it('never repeats a token of the file in its messages', () => {
    const content = '[{"name":"x","token":"secret-token-value-123","scopes":["nope"]}]';
    expect(() => loadConfig({ GATEWAY_TOKENS_FILE: tokenFile(content) })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret-token-value-123') }),
    );
  });

  it('needs JWT_JWKS_URL, JWT_ISSUER and JWT_AUDIENCE together', () => {
    const jwks = 'https://idp.example/certs';
    expect(() => loadConfig({ JWT_JWKS_URL: jwks })).toThrow(/^JWT_ISSUER is required/);
    expect(() => loadConfig({ JWT_JWKS_URL: jwks, JWT_ISSUER: 'i' })).toThrow(/^JWT_AUDIENCE/);
    expect(() => loadConfig({ JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' })).toThrow(/^JWT_JWKS_URL/);
    expect(loadConfig({ JWT_JWKS_URL: jwks, JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' }).auth.jwt).toEqual(
      {
        jwksUrl: new URL(jwks),
        issuer: 'i',
        audience: 'a',
      },
    );
  });

  it('refuses an unknown scope in SESSION_SCOPES, naming it', () => {
    expect(() => loadConfig({ SESSION_SCOPES: 'read catalog:order' })).toThrow(
      /^SESSION_SCOPES names unknown scopes \(catalog:order\)/,
    );
    expect(loadConfig({ SESSION_SCOPES: 'read' }).auth.sessionScopes).toEqual(['read']);
  });

  it('sends the session cookie Secure everywhere but on loopback, unless SESSION_COOKIE_SECURE says otherwise', () => {
    expect(loadConfig({}).auth.sessionCookieSecure).toBe(false);
    const open = { HOST: '0.0.0.0', GATEWAY_TOKENS: 'a-token' };
    expect(loadConfig(open).auth.sessionCookieSecure).toBe(true);
    expect(loadConfig({ ...open, SESSION_COOKIE_SECURE: 'false' }).auth.sessionCookieSecure).toBe(
      false,
    );
    expect(loadConfig({ SESSION_COOKIE_SECURE: 'true' }).auth.sessionCookieSecure).toBe(true);
  });

  it('takes a token file or a JWKS as client authentication for a non-loopback HOST', () => {
    const service = { HOST: '0.0.0.0', VRA_USERNAME: 'svc', VRA_PASSWORD: 'p' };
    expect(() => loadConfig(service)).toThrow(/^HOST is not a loopback address/);
    const file = tokenFile('[{"name":"x","token":"a-read-only-token-123","scopes":["read"]}]');
    expect(loadConfig({ ...service, GATEWAY_TOKENS_FILE: file }).host).toBe('0.0.0.0');
    const jwt = { JWT_JWKS_URL: 'https://idp.example/certs', JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' };
    expect(loadConfig({ ...service, ...jwt }).host).toBe('0.0.0.0');
  });

  it('writes audit events to a file when AUDIT_LOG names one', () => {
    expect(loadConfig({ AUDIT_LOG: '/var/log/gateway/audit.jsonl' }).auth.audit).toEqual({
      file: '/var/log/gateway/audit.jsonl',
    });
  });
});
