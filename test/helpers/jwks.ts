import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/** A signing key of the test identity provider, and its public JWK as the JWKS lists it. */
export interface SigningKey {
  alg: string;
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

export async function signingKey(alg: string, kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, kid, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg } };
}

/** Seconds since the epoch, as JWT claims count them. */
export const epochSeconds = (): number => Math.floor(Date.now() / 1000);

/** A compact JWS of `claims` with this header, signed with `key` (a private key or HMAC bytes). */
export function signJwt(
  key: CryptoKey | Uint8Array,
  header: { alg: string; kid?: string },
  claims: Record<string, unknown>,
): Promise<string> {
  return new SignJWT(claims).setProtectedHeader(header).sign(key);
}

/** A JWKS served over HTTP on a loopback port: its keys can be swapped, its fetches are counted. */
export interface JwksServer {
  url: string;
  /** The keys it serves now. */
  keys: JWK[];
  /** GET requests it answered. */
  fetches: number;
  /** The HTTP status it answers with: 200 serves the keys, anything else an empty failure (an IdP down). */
  status: number;
  close(): Promise<void>;
}

export async function startJwksServer(keys: JWK[]): Promise<JwksServer> {
  const state = { keys, fetches: 0, status: 200 };
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/jwks.json') {
      response.writeHead(404).end();
      return;
    }
    state.fetches += 1;
    if (state.status !== 200) {
      response.writeHead(state.status, { 'content-type': 'text/html' }).end('<h1>unavailable</h1>');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    get keys() {
      return state.keys;
    },
    set keys(next) {
      state.keys = next;
    },
    get fetches() {
      return state.fetches;
    },
    get status() {
      return state.status;
    },
    set status(next) {
      state.status = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
