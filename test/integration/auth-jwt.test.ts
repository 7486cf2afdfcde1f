import { base64url, exportSPKI } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  epochSeconds,
  signingKey,
  signJwt,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from '../helpers/jwks.ts';
import { type Stack, startStack, upstreamCalls } from '../helpers/stack.ts';

const issuer = 'https://idp.example/realms/vmw';
const audience = 'vmw-graphql-gateway';
const gatewayToken = 'gateway-token-0123456789abcdef';

const viewerQuery = '{ viewer { name via tenant scopes expiresAt } }';
const workflowsQuery = '{ workflows(first: 1) { totalCount } }';

/** Claims the gateway accepts, unless a test changes them. */
function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: issuer,
    aud: audience,
    sub: 'u-1042',
    preferred_username: 'alice',
    scope: 'read',
    iat: epochSeconds(),
    exp: epochSeconds() + 600,
    ...extra,
  };
}

const signedBy = (key: SigningKey, extra?: Record<string, unknown>) =>
  signJwt(key.privateKey, { alg: key.alg, kid: key.kid }, claims(extra));

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Everything the simulators were sent since `marks`, as text: headers and bodies. */
function sentSince(stack: Stack, marks: { vro: number; vra: number; nsx: number }): string[] {
  return [
    ...stack.vro.requests.slice(marks.vro),
    ...stack.vra.requests.slice(marks.vra),
    ...stack.nsx.requests.slice(marks.nsx),
  ].map(
    (r) =>
      `${r.rawPath}?${r.query.toString()}\n${JSON.stringify(r.headers)}\n${r.body.toString('utf8')}`,
  );
}

const marksOf = (stack: Stack) => ({
  vro: stack.vro.requests.length,
  vra: stack.vra.requests.length,
  nsx: stack.nsx.requests.length,
});

describe('bearer JWTs of the identity provider (JWT_JWKS_URL)', () => {
  let rsa: SigningKey;
  let ec: SigningKey;
  let stranger: SigningKey;
  let jwks: JwksServer;
  let stack: Stack;

  beforeAll(async () => {
    [rsa, ec, stranger] = await Promise.all([
      signingKey('RS256', 'rsa-1'),
      signingKey('ES256', 'ec-1'),
      signingKey('RS256', 'rsa-1'),
    ]);
    jwks = await startJwksServer([rsa.jwk, ec.jwk]);
    stack = await startStack({
      env: {
        JWT_JWKS_URL: jwks.url,
        JWT_ISSUER: issuer,
        JWT_AUDIENCE: audience,
        GATEWAY_TOKENS: gatewayToken,
      },
    });
  });
  afterAll(async () => {
    await stack.close();
    await jwks.close();
  });

  it('shows a valid JWT as the viewer: preferred_username, JWT, its known scopes sorted, its expiry', async () => {
    const exp = epochSeconds() + 900;
    const token = await signedBy(rsa, { scope: 'workflow:run  read bogus:scope', exp });
    const before = upstreamCalls(stack);
    const answer = await stack.gql(viewerQuery, {}, bearer(token));
    expect(answer.status).toBe(200);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      viewer: {
        name: 'alice',
        via: 'JWT',
        tenant: null,
        scopes: ['read', 'workflow:run'],
        expiresAt: new Date(exp * 1000).toISOString(),
      },
    });
    expect(upstreamCalls(stack)).toBe(before);
  });

  it.each([
    ['has no preferred_username', { preferred_username: undefined }],
    ['has an empty preferred_username', { preferred_username: '' }],
  ])('names the caller by sub when the JWT %s', async (_, extra) => {
    const token = await signedBy(ec, { ...extra, sub: 'svc-deployer' });
    const answer = await stack.gql('{ viewer { name via } }', {}, bearer(token));
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ viewer: { name: 'svc-deployer', via: 'JWT' } });
  });

  it('holds no scope for a JWT without a scope claim: a query field is FORBIDDEN, viewer answers', async () => {
    const token = await signedBy(rsa, { scope: undefined });
    const before = upstreamCalls(stack);
    const answer = await stack.gql(
      '{ workflows(first: 1) { totalCount } viewer { scopes } }',
      {},
      bearer(token),
    );
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({ workflows: null, viewer: { scopes: [] } });
    expect(answer.errors?.map((e) => [e.path, e.extensions?.['code']])).toEqual([
      [['workflows'], 'FORBIDDEN'],
    ]);
    expect(answer.errors?.[0]?.message).toContain('"read"');
    expect(upstreamCalls(stack)).toBe(before);
  });

  describe('a read-only JWT', () => {
    it('runs a query, with the service account towards vRO', async () => {
      const token = await signedBy(rsa, { scope: 'read' });
      const from = stack.vro.requests.length;
      const answer = await stack.gql(workflowsQuery, {}, bearer(token));
      expect(answer.status).toBe(200);
      expect(answer.errors).toBeUndefined();
      expect(answer.data).toEqual({ workflows: { totalCount: 61 } });
      const sent = stack.vro.requests.slice(from);
      expect(sent).toHaveLength(1);
      const basic = Buffer.from(`${stack.vro.username}:${stack.vro.password}`).toString('base64');
      expect(sent[0]?.headers.authorization).toBe(`Basic ${basic}`);
    });

    it('is refused runWorkflow with FORBIDDEN naming workflow:run; vRO gets no POST and the audit log a denied event', async () => {
      const token = await signedBy(rsa, { scope: 'read' });
      const from = stack.vro.requests.length;
      const auditFrom = stack.audit.length;
      const answer = await stack.gql(
        'mutation Run { runWorkflow(workflowId: "c0ffee00-0000-4000-8000-000000000001") { execution { id } } }',
        {},
        bearer(token),
      );
      expect(answer.status).toBe(200);
      expect(answer.data).toBeNull();
      expect(answer.errors).toHaveLength(1);
      expect(answer.errors?.[0]?.path).toEqual(['runWorkflow']);
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('FORBIDDEN');
      expect(answer.errors?.[0]?.message).toContain('"workflow:run"');
      expect(stack.vro.requests.slice(from).filter((r) => r.method === 'POST')).toEqual([]);
      expect(stack.vro.requests.length).toBe(from);
      expect(stack.audit.slice(auditFrom)).toMatchObject([
        {
          field: 'runWorkflow',
          operationName: 'Run',
          decision: 'denied',
          outcome: 'FORBIDDEN',
          actor: { name: 'alice', via: 'jwt' },
          upstream: [],
        },
      ]);
    });
  });

  it('never forwards the JWT to an upstream, on queries to all three nor on a mutation', async () => {
    const token = await signedBy(rsa, { scope: 'read network:write catalog:request' });
    const marks = marksOf(stack);
    const answer = await stack.gql(
      '{ workflows(first: 2) { totalCount } ipSets { id } entitledCatalogItems(first: 1) { totalCount } }',
      {},
      bearer(token),
    );
    expect(answer.status).toBe(200);
    expect(answer.errors).toBeUndefined();
    const created = await stack.gql(
      'mutation { createIpSet(input: { name: "jwt-not-forwarded", addresses: ["10.1.2.3"] }) { id } }',
      {},
      bearer(token),
    );
    expect(created.errors).toBeUndefined();

    const sent = sentSince(stack, marks);
    expect(stack.vro.requests.length).toBeGreaterThan(marks.vro);
    expect(stack.vra.requests.length).toBeGreaterThan(marks.vra);
    expect(stack.nsx.requests.length).toBeGreaterThan(marks.nsx);
    const [, payload, signature] = token.split('.');
    for (const text of sent) {
      expect(text).not.toContain(signature);
      expect(text).not.toContain(payload);
    }
  });

  describe('a refused JWT', () => {
    const refusals: Array<[string, () => Promise<string>]> = [
      [
        'an expired JWT',
        () => signedBy(rsa, { iat: epochSeconds() - 900, exp: epochSeconds() - 120 }),
      ],
      [
        'a JWT not valid before a minute from now',
        () => signedBy(rsa, { nbf: epochSeconds() + 60 }),
      ],
      ['a JWT of another issuer', () => signedBy(rsa, { iss: 'https://idp.example/realms/other' })],
      ['a JWT for another audience', () => signedBy(rsa, { aud: 'another-service' })],
      ['a JWT without exp', () => signedBy(rsa, { exp: undefined })],
      [
        'an unsigned JWT (alg none)',
        () => {
          const encode = (value: object) => base64url.encode(JSON.stringify(value));
          return Promise.resolve(
            `${encode({ alg: 'none', kid: rsa.kid })}.${encode(claims({ scope: 'read workflow:run' }))}.`,
          );
        },
      ],
      [
        "an HS256 JWT keyed with the RSA public key's PEM",
        async () =>
          signJwt(
            new TextEncoder().encode(await exportSPKI(rsa.publicKey)),
            { alg: 'HS256', kid: rsa.kid },
            claims(),
          ),
      ],
      [
        "an HS256 JWT keyed with the RSA public key's JWK",
        () =>
          signJwt(
            new TextEncoder().encode(JSON.stringify(rsa.jwk)),
            { alg: 'HS256', kid: rsa.kid },
            claims(),
          ),
      ],
      [
        'a JWT signed by another key under a listed kid',
        () => signJwt(stranger.privateKey, { alg: 'RS256', kid: rsa.kid }, claims()),
      ],
    ];

    it.each(refusals)(
      'answers 401 UNAUTHENTICATED with WWW-Authenticate to %s, and calls no upstream',
      async (_, token) => {
        const before = upstreamCalls(stack);
        const auditFrom = stack.audit.length;
        const answer = await stack.gql(workflowsQuery, {}, bearer(await token()));
        expect(answer.status).toBe(401);
        expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer realm="[^"]+"$/);
        expect(answer.data).toBeUndefined();
        expect(answer.errors?.map((e) => e.extensions?.['code'])).toEqual(['UNAUTHENTICATED']);
        expect(upstreamCalls(stack)).toBe(before);
        expect(stack.audit.length).toBe(auditFrom);
      },
    );

    it('is refused even for an operation that only asks for the viewer', async () => {
      const token = await signedBy(rsa, { aud: 'another-service' });
      const answer = await stack.gql(viewerQuery, {}, bearer(token));
      expect(answer.status).toBe(401);
      expect(answer.errors?.map((e) => e.extensions?.['code'])).toEqual(['UNAUTHENTICATED']);
    });

    it('runs no mutation: a refused JWT on runWorkflow leaves vRO untouched and is written down as denied, without the JWT', async () => {
      const token = await signedBy(rsa, {
        scope: 'read workflow:run',
        exp: epochSeconds() - 120,
        iat: epochSeconds() - 900,
      });
      const before = upstreamCalls(stack);
      const auditFrom = stack.audit.length;
      const answer = await stack.gql(
        'mutation { runWorkflow(workflowId: "c0ffee00-0000-4000-8000-000000000001") { execution { id } } }',
        {},
        bearer(token),
      );
      expect(answer.status).toBe(401);
      expect(upstreamCalls(stack)).toBe(before);
      const events = stack.audit.slice(auditFrom);
      expect(events.map((e) => [e.field, e.decision, e.outcome, e.actor])).toEqual([
        ['runWorkflow', 'denied', 'UNAUTHENTICATED', { name: 'anonymous', via: 'anonymous' }],
      ]);
      expect(JSON.stringify(events)).not.toContain(token.split('.')[2]);
    });
  });

  it('still takes a gateway token beside JWTs: every scope, shown as TOKEN without expiry', async () => {
    const answer = await stack.gql(
      `{ ${workflowsQuery.slice(1, -1)} viewer { name via tenant scopes expiresAt } }`,
      {},
      bearer(gatewayToken),
    );
    expect(answer.status).toBe(200);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      workflows: { totalCount: 61 },
      viewer: {
        name: 'GATEWAY_TOKENS[1]',
        via: 'TOKEN',
        tenant: null,
        scopes: [
          'catalog:admin',
          'catalog:request',
          'network:write',
          'package:import',
          'read',
          'workflow:run',
        ],
        expiresAt: null,
      },
    });
  });

  it('refuses a request without a credential with 401, but answers viewer null to it', async () => {
    const before = upstreamCalls(stack);
    const refused = await stack.gql(workflowsQuery);
    expect(refused.status).toBe(401);
    expect(refused.errors?.map((e) => e.extensions?.['code'])).toEqual(['UNAUTHENTICATED']);
    const open = await stack.gql('{ viewer { name } }');
    expect(open.status).toBe(200);
    expect(open.data).toEqual({ viewer: null });
    expect(upstreamCalls(stack)).toBe(before);
  });
});

describe('rotation of the identity provider keys', () => {
  let first: SigningKey;
  let second: SigningKey;
  let jwks: JwksServer;
  let stack: Stack;

  beforeAll(async () => {
    [first, second] = await Promise.all([
      signingKey('ES256', 'key-2026-01'),
      signingKey('ES256', 'key-2026-02'),
    ]);
    jwks = await startJwksServer([first.jwk]);
    stack = await startStack({
      env: { JWT_JWKS_URL: jwks.url, JWT_ISSUER: issuer, JWT_AUDIENCE: audience },
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await stack.close();
    await jwks.close();
  });

  it('takes a JWT of a new kid after the JWKS switches keys, with one refetch at most once a minute', async () => {
    const viewerName = async (token: string): Promise<[number, string | null]> => {
      const answer = await stack.gql<{ viewer: { name: string } | null }>(
        '{ viewer { name } }',
        {},
        bearer(token),
      );
      return [answer.status, answer.data?.viewer?.name ?? null];
    };

    expect(jwks.fetches).toBe(0);
    expect(await viewerName(await signedBy(first, { preferred_username: 'before' }))).toEqual([
      200,
      'before',
    ]);
    expect(jwks.fetches).toBe(1);
    expect(await viewerName(await signedBy(first, { preferred_username: 'before' }))).toEqual([
      200,
      'before',
    ]);
    expect(jwks.fetches).toBe(1);

    // The provider rotates: only the new key is published from now on.
    jwks.keys = [second.jwk];
    const start = Date.now();
    vi.setSystemTime(start);
    // Within the minute of the last fetch, an unknown kid does not fetch the set again.
    expect(await viewerName(await signedBy(second, { preferred_username: 'after' }))).toEqual([
      401,
      null,
    ]);
    expect(jwks.fetches).toBe(1);

    vi.setSystemTime(start + 61_000);
    expect(await viewerName(await signedBy(second, { preferred_username: 'after' }))).toEqual([
      200,
      'after',
    ]);
    expect(jwks.fetches).toBe(2);
    expect(await viewerName(await signedBy(second, { preferred_username: 'again' }))).toEqual([
      200,
      'again',
    ]);
    expect(jwks.fetches).toBe(2);

    // The retired key is no longer accepted, and asking for it does not fetch the set again.
    expect(await viewerName(await signedBy(first, { preferred_username: 'before' }))).toEqual([
      401,
      null,
    ]);
    expect(jwks.fetches).toBe(2);
    expect(upstreamCalls(stack)).toBe(0);
  });
});

describe('an identity provider whose JWKS fails', () => {
  let key: SigningKey;
  let newer: SigningKey;
  let jwks: JwksServer;
  let stack: Stack;

  beforeAll(async () => {
    [key, newer] = await Promise.all([
      signingKey('ES256', 'outage-1'),
      signingKey('ES256', 'outage-2'),
    ]);
    jwks = await startJwksServer([key.jwk]);
    stack = await startStack({
      env: { JWT_JWKS_URL: jwks.url, JWT_ISSUER: issuer, JWT_AUDIENCE: audience },
    });
  });
  afterEach(() => {
    vi.useRealTimers();
    jwks.status = 200;
  });
  afterAll(async () => {
    await stack.close();
    await jwks.close();
  });

  /** One request with the JWT through a transport; its status, code and how long it took (real ms). */
  async function attempt(
    token: string,
    transport: 'POST' | 'GET' | 'batch',
  ): Promise<{ status: number; code: unknown; ms: number }> {
    const started = performance.now();
    const query = '{ viewer { name } }';
    const headers = { ...bearer(token), accept: 'application/json' };
    const response =
      transport === 'GET'
        ? await stack.fetch(`/graphql?query=${encodeURIComponent(query)}`, { headers })
        : await stack.fetch('/graphql', {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify(transport === 'batch' ? [{ query }, { query }] : { query }),
          });
    const body = (await response.json()) as {
      errors?: Array<{ extensions?: Record<string, unknown> }>;
    };
    return {
      status: response.status,
      code: body.errors?.[0]?.extensions?.['code'],
      ms: performance.now() - started,
    };
  }

  it('fetches a failing JWKS once for 20 requests and 50 parallel ones, answering each UNAUTHENTICATED at once; after the back-off and its recovery a JWT is accepted', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const start = Date.now();
    jwks.status = 503;
    const token = await signedBy(key, { preferred_username: 'during' });
    const before = upstreamCalls(stack);

    for (let i = 0; i < 20; i += 1) {
      const answer = await attempt(token, (['POST', 'GET', 'batch'] as const)[i % 3]!);
      expect(answer).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
      expect(answer.ms).toBeLessThan(1000);
    }
    expect(jwks.fetches).toBe(1);

    vi.setSystemTime(start + 30_000);
    const parallel = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        attempt(token, (['POST', 'GET', 'batch'] as const)[i % 3]!),
      ),
    );
    for (const answer of parallel) {
      expect(answer).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
      expect(answer.ms).toBeLessThan(2000);
    }
    expect(jwks.fetches).toBe(1);

    // Back up, but within the back-off: still not asked, still refused.
    jwks.status = 200;
    vi.setSystemTime(start + 59_000);
    expect(await attempt(token, 'POST')).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(jwks.fetches).toBe(1);

    // The next attempt after the back-off fetches the keys once and is accepted, and the keys stay.
    vi.setSystemTime(start + 61_000);
    for (let i = 0; i < 3; i += 1) {
      const answer = await stack.gql('{ viewer { name } }', {}, bearer(token));
      expect(answer.errors).toBeUndefined();
      expect(answer.data).toEqual({ viewer: { name: 'during' } });
    }
    expect(jwks.fetches).toBe(2);
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('still accepts the keys it holds while a refetch for unknown kids fails, and refetches those at most once a minute', async () => {
    // Later than anything the test above saw (the gateway's clock never goes back).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 300_000 });
    const start = Date.now();
    const known = await signedBy(key, { preferred_username: 'known' });
    expect((await stack.gql('{ viewer { name } }', {}, bearer(known))).data).toEqual({
      viewer: { name: 'known' },
    });
    const fetched = jwks.fetches;
    // Past the cool-down of unknown kids, the IdP fails: a flood of new kids asks it once.
    vi.setSystemTime(start + 61_000);
    jwks.status = 503;
    const unknown = await Promise.all(
      Array.from({ length: 20 }, async (_, i) =>
        attempt(
          await signJwt(newer.privateKey, { alg: 'ES256', kid: `rotated-${i}` }, claims()),
          'POST',
        ),
      ),
    );
    for (const answer of unknown) expect(answer).toMatchObject({ status: 401 });
    for (let i = 0; i < 10; i += 1) {
      const token = await signJwt(newer.privateKey, { alg: 'ES256', kid: `later-${i}` }, claims());
      expect(await attempt(token, 'GET')).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    }
    expect(jwks.fetches - fetched).toBe(1);
    // The key it holds still works meanwhile, without asking the IdP.
    expect((await stack.gql('{ viewer { name } }', {}, bearer(known))).data).toEqual({
      viewer: { name: 'known' },
    });
    expect(jwks.fetches - fetched).toBe(1);

    // Rotated and back: after the back-off the new kid is fetched once and accepted.
    jwks.keys = [key.jwk, newer.jwk];
    jwks.status = 200;
    vi.setSystemTime(start + 123_000);
    const rotated = await signedBy(newer, { preferred_username: 'rotated' });
    expect((await stack.gql('{ viewer { name } }', {}, bearer(rotated))).data).toEqual({
      viewer: { name: 'rotated' },
    });
    expect(jwks.fetches - fetched).toBe(2);
  });
});
