import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  base64url,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  importJWK,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createJwtVerifier,
  JwtRejectedError,
  looksLikeJwt,
  type JwtRejectedReason,
} from '../../src/auth/jwt.ts';

const issuer = 'https://idp.example/realms/vmw';
const audience = 'vmw-graphql-gateway';

interface Signer {
  alg: string;
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

async function signer(alg: string, kid: string): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, kid, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg } };
}

const seconds = () => Math.floor(Date.now() / 1000);

function sign(
  key: CryptoKey | Uint8Array,
  header: { alg: string; kid?: string },
  claims: Record<string, unknown> = {},
): Promise<string> {
  const payload = {
    iss: issuer,
    aud: audience,
    sub: 'u-1',
    preferred_username: 'alice',
    scope: 'read workflow:run',
    iat: seconds(),
    exp: seconds() + 600,
    ...claims,
  };
  return new SignJWT(payload).setProtectedHeader(header).sign(key);
}

const signedBy = (s: Signer, claims?: Record<string, unknown>) =>
  sign(s.privateKey, { alg: s.alg, kid: s.kid }, claims);

interface JwksServer {
  url: URL;
  requests: number;
  keys: JWK[];
  close(): Promise<void>;
}

async function listen(handler: RequestListener): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function urlOf(server: Server): URL {
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`);
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

async function serveJwks(keys: JWK[]): Promise<JwksServer> {
  const state = { requests: 0, keys };
  const server = await listen((_req, res) => {
    state.requests += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: state.keys }));
  });
  return Object.assign(state, { url: urlOf(server), close: () => close(server) });
}

async function rejection(
  verifier: ReturnType<typeof createJwtVerifier>,
  token: string,
): Promise<JwtRejectedReason> {
  const error = await verifier.verify(token).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JwtRejectedError);
  const { reason, message } = error as JwtRejectedError;
  expect(message).not.toContain(token);
  expect(message).toMatch(/^[^.]+\.$/);
  return reason;
}

let rsa: Signer;
let ec: Signer;
let ed: Signer;
let rotated: Signer;
let stranger: Signer;

beforeAll(async () => {
  [rsa, ec, ed, rotated, stranger] = await Promise.all([
    signer('RS256', 'rsa-1'),
    signer('ES256', 'ec-1'),
    signer('EdDSA', 'ed-1'),
    signer('RS256', 'rsa-2'),
    signer('RS256', 'stranger'),
  ]);
});

let jwks: JwksServer;
let verifier: ReturnType<typeof createJwtVerifier>;

beforeEach(async () => {
  jwks = await serveJwks([rsa.jwk, ec.jwk, ed.jwk]);
  verifier = createJwtVerifier({ jwksUrl: jwks.url, issuer, audience });
});

afterEach(async () => {
  vi.useRealTimers();
  await jwks.close();
});

describe('createJwtVerifier, accepted tokens', () => {
  it('names the caller by preferred_username, with the scope claim split on spaces', async () => {
    const exp = seconds() + 300;
    const token = await signedBy(rsa, { exp, scope: ' read  workflow:run ' });
    await expect(verifier.verify(token)).resolves.toEqual({
      name: 'alice',
      scopes: ['read', 'workflow:run'],
      expiresAt: exp * 1000,
    });
  });

  it('names the caller by sub when preferred_username is missing or empty, with no scopes when scope is missing', async () => {
    for (const preferred_username of [undefined, '']) {
      const token = await signedBy(rsa, { preferred_username, scope: undefined });
      const { name, scopes } = await verifier.verify(token);
      expect({ name, scopes }).toEqual({ name: 'u-1', scopes: [] });
    }
  });

  it('refuses a token that names no caller, neither preferred_username nor sub', async () => {
    for (const sub of [undefined, '']) {
      const token = await signedBy(rsa, { preferred_username: undefined, sub });
      expect(await rejection(verifier, token)).toBe('claims');
    }
  });

  it('refuses a token without exp, and gives one with exp its expiry in epoch ms', async () => {
    expect(await rejection(verifier, await signedBy(rsa, { exp: undefined }))).toBe('claims');
    const exp = seconds() + 600;
    expect((await verifier.verify(await signedBy(rsa, { exp }))).expiresAt).toBe(exp * 1000);
  });

  it.each(['RS256', 'ES256', 'EdDSA'])('accepts a token signed with %s', async (alg) => {
    const key = [rsa, ec, ed].find((s) => s.alg === alg)!;
    expect((await verifier.verify(await signedBy(key))).name).toBe('alice');
  });

  it('fetches the JWKS once for many tokens, and again once the cache is 10 minutes old', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    for (let i = 0; i < 3; i += 1) await verifier.verify(await signedBy(rsa));
    expect(jwks.requests).toBe(1);

    vi.setSystemTime(Date.now() + 601_000);
    await verifier.verify(await signedBy(rsa));
    expect(jwks.requests).toBe(2);
  });

  it('accepts a token expired or not yet valid by less than the 30 s clock tolerance', async () => {
    const token = await signedBy(rsa, { exp: seconds() - 10, nbf: seconds() + 10 });
    expect((await verifier.verify(token)).name).toBe('alice');
  });
});

describe('createJwtVerifier, every asymmetric algorithm', () => {
  it.each(['RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES384', 'ES512', 'Ed25519'])(
    'accepts a token signed with %s by a key of the JWKS',
    async (alg) => {
      const key = await signer(alg, `${alg}-1`);
      jwks.keys = [key.jwk];
      expect(await verifier.verify(await signedBy(key))).toMatchObject({ name: 'alice' });
    },
  );
});

describe('createJwtVerifier, rejected claims', () => {
  it.each([
    ['a wrong issuer', { iss: 'https://other.example' }, 'claims'],
    ['a wrong audience', { aud: 'someone-else' }, 'claims'],
    ['no exp', { exp: undefined }, 'claims'],
    ['an exp 60 s past', { exp: seconds() - 60 }, 'expired'],
    ['an nbf 2 minutes ahead', { nbf: seconds() + 120 }, 'claims'],
    [
      'neither preferred_username nor sub',
      { preferred_username: undefined, sub: undefined },
      'claims',
    ],
    ['a scope claim that is not a string', { scope: ['read'] }, 'claims'],
  ])('rejects a token with %s', async (_, claims, reason) => {
    expect(await rejection(verifier, await signedBy(rsa, claims))).toBe(reason);
  });

  it('rejects what is not a JWT as malformed', async () => {
    expect(await rejection(verifier, 'opaque-session-token')).toBe('malformed');
    expect(await rejection(verifier, 'e30.e30.AAAA')).toBe('malformed');
  });
});

describe('createJwtVerifier, rejected algorithms and keys', () => {
  it('rejects an unsigned token (alg none)', async () => {
    const encode = (value: object) => base64url.encode(JSON.stringify(value));
    const payload = { iss: issuer, aud: audience, sub: 'admin', exp: seconds() + 600 };
    const token = `${encode({ alg: 'none', kid: rsa.kid })}.${encode(payload)}.`;
    expect(await rejection(verifier, token)).toBe('algorithm');
  });

  it.each([
    ['PEM', async () => new TextEncoder().encode(await exportSPKI(rsa.publicKey))],
    ['JWK', () => Promise.resolve(new TextEncoder().encode(JSON.stringify(rsa.jwk)))],
  ])(
    "rejects an HS256 token signed with the public key's %s bytes (alg confusion)",
    async (_, secret) => {
      const token = await sign(await secret(), { alg: 'HS256', kid: rsa.kid });
      expect(await rejection(verifier, token)).toBe('algorithm');
    },
  );

  it("rejects a token whose alg differs from its JWK's alg", async () => {
    // RS256 by a key the JWKS does not have, naming the ES256 JWK.
    const rs256 = await sign(stranger.privateKey, { alg: 'RS256', kid: ec.kid });
    expect(await rejection(verifier, rs256)).toBe('signature');
    // PS256 by the very RSA key of the JWKS, whose JWK says RS256.
    const asPss = await importJWK(await exportJWK(rsa.privateKey), 'PS256');
    const ps256 = await sign(asPss, { alg: 'PS256', kid: rsa.kid });
    expect(await rejection(verifier, ps256)).toBe('signature');
  });

  it('rejects a token signed by a key not in the JWKS', async () => {
    expect(await rejection(verifier, await signedBy(stranger))).toBe('signature');
    const posing = await sign(stranger.privateKey, { alg: 'RS256', kid: rsa.kid });
    expect(await rejection(verifier, posing)).toBe('signature');
  });
});

describe('createJwtVerifier, key rotation', () => {
  it("accepts a new key's token after one refetch of the JWKS", async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    await verifier.verify(await signedBy(rsa));
    expect(jwks.requests).toBe(1);

    jwks.keys = [rotated.jwk];
    vi.setSystemTime(Date.now() + 61_000);
    expect((await verifier.verify(await signedBy(rotated))).name).toBe('alice');
    expect(jwks.requests).toBe(2);
    expect(await rejection(verifier, await signedBy(rsa))).toBe('signature');
    expect(jwks.requests).toBe(2);
  });

  it('refetches the JWKS at most once a minute for a flood of unknown kids', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    await verifier.verify(await signedBy(rsa));
    vi.setSystemTime(Date.now() + 61_000);

    for (let i = 0; i < 5; i += 1) {
      const token = await sign(stranger.privateKey, { alg: 'RS256', kid: `unknown-${i}` });
      expect(await rejection(verifier, token)).toBe('signature');
    }
    const concurrent = Array.from({ length: 5 }, async (_, i) =>
      rejection(verifier, await sign(stranger.privateKey, { alg: 'RS256', kid: `burst-${i}` })),
    );
    expect(await Promise.all(concurrent)).toEqual(Array(5).fill('signature'));
    expect(jwks.requests).toBe(2);

    vi.setSystemTime(Date.now() + 61_000);
    expect(await rejection(verifier, await signedBy(stranger))).toBe('signature');
    expect(jwks.requests).toBe(3);
  });
});

describe('createJwtVerifier, JWKS unavailable', () => {
  it('rejects with keys-unavailable when nothing listens at the JWKS URL', async () => {
    const gone = await listen(() => undefined);
    const jwksUrl = urlOf(gone);
    await close(gone);
    const down = createJwtVerifier({ jwksUrl, issuer, audience });
    expect(await rejection(down, await signedBy(rsa))).toBe('keys-unavailable');
  });

  it('rejects with keys-unavailable when the JWKS answers 500', async () => {
    const failing = await listen((_req, res) => res.writeHead(500).end());
    try {
      const down = createJwtVerifier({ jwksUrl: urlOf(failing), issuer, audience });
      expect(await rejection(down, await signedBy(rsa))).toBe('keys-unavailable');
    } finally {
      await close(failing);
    }
  });

  it('rejects with keys-unavailable when the JWKS does not answer within fetchTimeoutMs', async () => {
    const silent = await listen(() => undefined);
    try {
      const down = createJwtVerifier(
        { jwksUrl: urlOf(silent), issuer, audience },
        { fetchTimeoutMs: 100 },
      );
      expect(await rejection(down, await signedBy(rsa))).toBe('keys-unavailable');
    } finally {
      await close(silent);
    }
  });
});

describe('createJwtVerifier, JWKS failing then back', () => {
  it('asks a failing JWKS once per back-off (retryAfterFailureMs), and takes its keys once it is back', async () => {
    let failing = true;
    let requests = 0;
    const idp = await listen((_req, res) => {
      requests += 1;
      if (failing) res.writeHead(503).end();
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ keys: [rsa.jwk] }));
    });
    try {
      const verifying = createJwtVerifier(
        { jwksUrl: urlOf(idp), issuer, audience },
        { retryAfterFailureMs: 300 },
      );
      const token = await signedBy(rsa);
      for (let i = 0; i < 10; i += 1) {
        expect(await rejection(verifying, token)).toBe('keys-unavailable');
      }
      const parallel = await Promise.all(
        Array.from({ length: 20 }, () => rejection(verifying, token)),
      );
      expect(parallel).toEqual(Array(20).fill('keys-unavailable'));
      expect(requests).toBe(1);
      failing = false;
      expect(await rejection(verifying, token)).toBe('keys-unavailable');
      expect(requests).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect((await verifying.verify(token)).name).toBe('alice');
      expect((await verifying.verify(token)).name).toBe('alice');
      expect(requests).toBe(2);
    } finally {
      await close(idp);
    }
  });
});

describe('looksLikeJwt', () => {
  it('is true for a signed JWT and for an unsigned one with an empty signature', async () => {
    expect(looksLikeJwt(await signedBy(rsa))).toBe(true);
    expect(looksLikeJwt(`${base64url.encode('{"alg":"none"}')}.e30.`)).toBe(true);
  });

  it('is false for a JWT with a character outside base64url before or after it', async () => {
    const token = await signedBy(rsa);
    expect(looksLikeJwt(`!${token}`)).toBe(false);
    expect(looksLikeJwt(`${token}!`)).toBe(false);
  });

  it.each([
    ['an opaque token', 'opaque-session-token'],
    ['two segments', `${base64url.encode('{"alg":"RS256"}')}.e30`],
    ['a header without alg', `${base64url.encode('{"typ":"JWT"}')}.e30.AAAA`],
    ['a header that is not JSON', `${base64url.encode('not json')}.e30.AAAA`],
    ['a header that is a JSON array', `${base64url.encode('["alg"]')}.e30.AAAA`],
    ['characters outside base64url', `${base64url.encode('{"alg":"RS256"}')}.e3+0.AA/A`],
  ])('is false for %s', (_, token) => {
    expect(looksLikeJwt(token)).toBe(false);
  });
});
