import { createHash, type Hash } from 'node:crypto';
import {
  afterAll,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  vi,
  type MockInstance,
} from 'vitest';
import type { RemoteStore } from '../../src/cache/remote-store.ts';
import {
  epochSeconds,
  signingKey,
  signJwt,
  startJwksServer,
  type JwksServer,
} from '../helpers/jwks.ts';
import { MemoryRedis } from '../helpers/memory-store.ts';
import { type Stack, startStack } from '../helpers/stack.ts';

const issuer = 'https://idp.example/realms/vmw';
const audience = 'vmw-graphql-gateway';
const gatewayToken = 'gateway-token-once-per-request-0123456789';
const developer = { username: 'developer@vsphere.local', password: 'developer-simulator' };

/** 30 root fields (MAX_ALIASES' default), each needing the caller: half read vRO, half ask who calls. */
const thirtyFields = `{ ${Array.from({ length: 15 }, (_, n) =>
  [`w${n}: workflows(first: 1) { totalCount }`, `v${n}: viewer { name }`].join(' '),
).join(' ')} }`;

let jwks: JwksServer;
let stack: Stack;
let jwt: string;
let cookie: string;
/** Session look-ups Redis was asked (its other keys, the shared caches', not counted). */
let sessionReads = 0;
let resolutions: MockInstance;

beforeAll(async () => {
  const key = await signingKey('RS256', 'rsa-1');
  jwks = await startJwksServer([key.jwk]);
  jwt = await signJwt(
    key.privateKey,
    { alg: key.alg, kid: key.kid },
    {
      iss: issuer,
      aud: audience,
      sub: 'u-1042',
      preferred_username: 'alice',
      scope: 'read',
      exp: epochSeconds() + 600,
    },
  );
  const remote: RemoteStore = new MemoryRedis().store('replica-a');
  const get = remote.get.bind(remote);
  remote.get = (key) => {
    if (key.startsWith('session:')) sessionReads += 1;
    return get(key);
  };
  stack = await startStack({
    env: {
      JWT_JWKS_URL: jwks.url,
      JWT_ISSUER: issuer,
      JWT_AUDIENCE: audience,
      GATEWAY_TOKENS: gatewayToken,
      SESSION_SECRET: 'once-per-request-session-secret-0123456789',
    },
    remote,
  });
  const signedIn = await stack.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation($u: String!, $p: String!) { signIn(username: $u, password: $p) { name } }',
      variables: { u: developer.username, p: developer.password },
    }),
  });
  const line = signedIn.headers.getSetCookie().find((c) => c.startsWith('gateway_session='));
  cookie = /^gateway_session=([^;]*)/.exec(line ?? '')?.[1] ?? '';
  expect(cookie).not.toBe('');
  resolutions = vi.spyOn(stack.gateway.identity.authenticator, 'resolve');
});
afterAll(async () => {
  await stack.close();
  await jwks.close();
});
beforeEach(() => {
  resolutions.mockClear();
  sessionReads = 0;
});

const credentials = [
  ['a JWT of the identity provider', () => ({ authorization: `Bearer ${jwt}` }), 'alice'],
  ['a gateway token', () => ({ authorization: `Bearer ${gatewayToken}` }), 'GATEWAY_TOKENS[1]'],
  ['a session cookie', () => ({ cookie: `gateway_session=${cookie}` }), developer.username],
] as const;

async function post(headers: Record<string, string>, body: unknown): Promise<any> {
  const response = await stack.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return response.json();
}

describe.each(credentials)('the credential of a request, %s,', (_kind, headers, name) => {
  it('is resolved once for an operation of 30 root fields', async () => {
    const answer = await post(headers(), { query: thirtyFields });
    expect(answer.errors).toBeUndefined();
    expect(answer.data.v14).toEqual({ name });
    expect(resolutions).toHaveBeenCalledTimes(1);
    expect(sessionReads).toBe(name === developer.username ? 1 : 0);
  });

  it('is resolved once for a batch of 5 such operations: the caller belongs to the HTTP request', async () => {
    const answers = await post(
      headers(),
      Array.from({ length: 5 }, () => ({ query: thirtyFields })),
    );
    expect(answers).toHaveLength(5);
    for (const answer of answers) {
      expect(answer.errors).toBeUndefined();
      expect(answer.data.v0).toEqual({ name });
    }
    expect(resolutions).toHaveBeenCalledTimes(1);
    expect(sessionReads).toBe(name === developer.username ? 1 : 0);
  });
});

describe('an operation of an SSE single connection', () => {
  it("runs as the caller of the client's POST, resolved once for it (not again for the operation's own request)", async () => {
    const auth = { authorization: `Bearer ${jwt}` };
    const reserved = await stack.fetch('/graphql', { method: 'PUT', headers: auth });
    expect(reserved.status).toBe(201);
    const token = await reserved.text();
    const stream = await stack.fetch(`/graphql?token=${token}`, {
      headers: { ...auth, accept: 'text/event-stream' },
    });
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    resolutions.mockClear();
    const started = await stack.fetch('/graphql', {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'application/json',
        'x-graphql-event-stream-token': token,
      },
      body: JSON.stringify({ query: thirtyFields, extensions: { operationId: 'op-1' } }),
    });
    expect(started.status).toBe(202);
    let text = '';
    while (!text.includes('event: complete')) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    await reader.cancel();
    const next = /event: next\ndata: (.+)\n/.exec(text)?.[1];
    const { payload } = JSON.parse(next ?? '{}') as { payload: any };
    expect(payload.errors).toBeUndefined();
    expect(payload.data.v7).toEqual({ name: 'alice' });
    expect(resolutions).toHaveBeenCalledTimes(1);
  });
});

describe("a user's own upstream credential", () => {
  it('is hashed for the caches once, however many fields, operations and requests use it', async () => {
    const vroCredential = `Basic ${Buffer.from(`${stack.vro.username}:${stack.vro.password}`).toString('base64')}`;
    const listed = await post(
      { authorization: `Bearer ${gatewayToken}` },
      { query: '{ workflows(first: 3) { nodes { id } } }' },
    );
    const ids = (listed.data.workflows.nodes as Array<{ id: string }>).map((n) => n.id);
    expect(ids).toHaveLength(3);
    const details = `{ ${Array.from(
      { length: 10 },
      (_, n) => `d${n}: workflow(id: "${ids[n % 3]}") { name }`,
    ).join(' ')} }`;
    const hashed = vi.spyOn(Object.getPrototypeOf(createHash('sha256')) as Hash, 'update');
    try {
      for (let round = 0; round < 3; round += 1) {
        const answers = await post(
          { authorization: `Bearer ${gatewayToken}`, 'x-vro-authorization': vroCredential },
          Array.from({ length: 5 }, () => ({ query: details })),
        );
        for (const answer of answers) expect(answer.errors).toBeUndefined();
      }
      const ofCredential = hashed.mock.calls.filter(([data]) => data === vroCredential);
      expect(ofCredential).toHaveLength(1);
    } finally {
      hashed.mockRestore();
    }
  });
});
