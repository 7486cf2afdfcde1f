import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Stack, startStack, upstreamCalls } from '../helpers/stack.ts';
import { packageUpload } from '../helpers/uploads.ts';

const frontEnd = 'http://front.example:8080';
const query = '{ workflows(first: 1) { totalCount } }';
let created = 0;
/** A mutation that creates an IP set of a new name each time. */
const mutation = (): string =>
  `mutation { createIpSet(scopeId: "globalroot-0", input: { name: "from-a-page-${++created}", addresses: ["10.0.0.1"] }) { id } }`;
const samplePackage = readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url));

let stack: Stack;
let server: Awaited<ReturnType<typeof listen>>;
/** Another port on the same loopback host: another origin. */
let neighbour: string;

beforeAll(async () => {
  stack = await startStack({ env: { CORS_ORIGINS: frontEnd } });
  server = await listen(stack.gateway);
  neighbour = `http://127.0.0.1:${Number(new URL(server.url).port) + 1}`;
});
afterAll(async () => {
  await server.close();
  await stack.close();
});

function post(body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

function get(document: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/graphql?query=${encodeURIComponent(document)}`, {
    headers: { accept: 'application/json', ...headers },
  });
}

function preflight(origin: string, method = 'POST'): Promise<Response> {
  return fetch(`${server.url}/graphql`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type,authorization',
    },
  });
}

async function expectRefused(response: Response, status: number, code: string): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get('access-control-allow-origin')).toBeNull();
  expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  const body = (await response.json()) as {
    data?: unknown;
    errors: Array<{ message: string; extensions: { code: string } }>;
  };
  expect(body.data ?? null).toBeNull();
  expect(body.errors.map((e) => e.extensions.code)).toEqual([code]);
  return body.errors[0]?.message ?? '';
}

const corsHeaders = (response: Response) =>
  Object.fromEntries(
    [...response.headers].filter(([name]) => name.startsWith('access-control-')),
  ) as Record<string, string>;

describe('a page of another origin', () => {
  it('gets no CORS permission in its preflight, whatever it asks', async () => {
    for (const method of ['POST', 'GET', 'PUT']) {
      const response = await preflight(neighbour, method);
      expect(response.status).toBe(204);
      expect(corsHeaders(response)).toEqual({});
    }
  });

  it('cannot run a mutation: 403 FORBIDDEN naming CORS_ORIGINS, and no upstream call', async () => {
    const before = upstreamCalls(stack);
    const message = await expectRefused(
      await post({ query: mutation() }, { origin: neighbour }),
      403,
      'FORBIDDEN',
    );
    expect(message).toContain(neighbour);
    expect(message).toContain('CORS_ORIGINS');
    expect(upstreamCalls(stack)).toBe(before);
  });

  it.each([
    ['text/plain;charset=UTF-8', JSON.stringify({ query: mutation() })],
    ['application/x-www-form-urlencoded', `query=${encodeURIComponent(mutation())}`],
  ])(
    'cannot run a mutation in a %s POST (no preflight), even with a CSRF header',
    async (contentType, body) => {
      const before = upstreamCalls(stack);
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': contentType, origin: neighbour, 'x-graphql-csrf': '1' },
        body,
      });
      await expectRefused(response, 403, 'FORBIDDEN');
      expect(upstreamCalls(stack)).toBe(before);
    },
  );

  it('cannot upload a package: vRO receives nothing', async () => {
    const { body, contentType } = await packageUpload(samplePackage);
    const before = stack.vro.requests.length;
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': contentType, origin: neighbour },
      body,
    });
    await expectRefused(response, 403, 'FORBIDDEN');
    expect(stack.vro.requests.length).toBe(before);
  });

  it('cannot run a query, over POST or GET', async () => {
    const before = upstreamCalls(stack);
    await expectRefused(await post({ query }, { origin: neighbour }), 403, 'FORBIDDEN');
    await expectRefused(await get(query, { origin: neighbour }), 403, 'FORBIDDEN');
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('cannot run a query from an <img> or a link (no Origin, Sec-Fetch-Site: cross-site or same-site)', async () => {
    const before = upstreamCalls(stack);
    for (const site of ['cross-site', 'same-site']) {
      const message = await expectRefused(
        await get(query, { 'sec-fetch-site': site }),
        403,
        'FORBIDDEN',
      );
      expect(message).toContain('Another site');
    }
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('is refused as "null" (sandboxed frame, file: page)', async () => {
    await expectRefused(await post({ query }, { origin: 'null' }), 403, 'FORBIDDEN');
  });

  it('is refused when only its scheme differs from the gateway', async () => {
    const https = server.url.replace('http:', 'https:');
    await expectRefused(await post({ query }, { origin: https }), 403, 'FORBIDDEN');
  });

  it('cannot reserve an SSE stream (single-connection mode)', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'PUT',
      headers: { origin: neighbour },
    });
    await expectRefused(response, 403, 'FORBIDDEN');
  });
});

describe('a front-end listed in CORS_ORIGINS', () => {
  it('is allowed by its preflight, credentials and the asked headers included', async () => {
    const response = await preflight(frontEnd);
    expect(response.status).toBe(204);
    expect(corsHeaders(response)).toEqual({
      'access-control-allow-origin': frontEnd,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET, POST, PUT, DELETE',
      'access-control-allow-headers': 'content-type,authorization',
      'access-control-max-age': '600',
    });
    expect(response.headers.get('vary')).toContain('Origin');
  });

  it('runs a mutation and may read the answer', async () => {
    const from = stack.nsx.requests.length;
    const response = await post({ query: mutation() }, { origin: frontEnd });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(frontEnd);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-expose-headers')).toBe('X-Request-Id');
    expect(response.headers.get('vary')).toContain('Origin');
    const body = (await response.json()) as { data: { createIpSet: { id: string } } };
    expect(body.data.createIpSet.id).toMatch(/^ipset-/);
    const sent = stack.nsx.requests.slice(from);
    expect(sent.some((r) => r.method === 'POST' && r.rawPath.includes('/ipset'))).toBe(true);
  });

  it('runs a GET query without a CSRF header', async () => {
    const response = await get(query, { origin: frontEnd });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(frontEnd);
    expect(await response.json()).toEqual({
      data: { workflows: { totalCount: expect.any(Number) } },
    });
  });
});

describe("the gateway's own pages (GraphiQL)", () => {
  it('run a mutation (Origin is the gateway itself) and get no CORS header, needing none', async () => {
    const response = await post({ query: mutation() }, { origin: server.url });
    expect(response.status).toBe(200);
    expect(corsHeaders(response)).toEqual({});
    const body = (await response.json()) as { errors?: unknown };
    expect(body.errors).toBeUndefined();
  });

  it('run a GET subscription without Origin and without a CSRF header (Sec-Fetch-Site: same-origin)', async () => {
    const response = await get(
      'subscription { workflowExecution(workflowId: "x", executionId: "y") { id } }',
      {
        accept: 'text/event-stream',
        'sec-fetch-site': 'same-origin',
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await response.body?.cancel();
  });

  it('upload a package without a CSRF header', async () => {
    const { body, contentType } = await packageUpload(samplePackage);
    const from = stack.vro.requests.length;
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': contentType, origin: server.url },
      body,
    });
    expect(response.status).toBe(200);
    const sent = stack.vro.requests.slice(from);
    expect(sent.map((r) => `${r.method} ${r.rawPath}`)).toEqual(['POST /vco/api/packages']);
  });

  it('still cannot run a mutation over GET (405, no upstream call)', async () => {
    const before = upstreamCalls(stack);
    const response = await get(mutation(), { 'sec-fetch-site': 'same-origin' });
    expect(response.status).toBe(405);
    expect(upstreamCalls(stack)).toBe(before);
  });
});

describe('clients that are not browsers (no Origin, no Sec-Fetch-Site)', () => {
  it('run a GET query without a CSRF header', async () => {
    const from = stack.vro.requests.length;
    const response = await get(query);
    expect(response.status).toBe(200);
    expect(corsHeaders(response)).toEqual({});
    expect(stack.vro.requests.length).toBe(from + 1);
  });

  it.each([
    ['text/plain;charset=UTF-8', JSON.stringify({ query })],
    ['application/x-www-form-urlencoded', `query=${encodeURIComponent(query)}`],
  ])(
    'must send x-graphql-csrf with a %s POST, which an old browser could send from any page',
    async (contentType, body) => {
      const before = upstreamCalls(stack);
      const message = await expectRefused(
        await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': contentType },
          body,
        }),
        400,
        'BAD_USER_INPUT',
      );
      expect(message).toContain('x-graphql-csrf');
      expect(upstreamCalls(stack)).toBe(before);
    },
  );

  it.each(['x-graphql-csrf', 'x-graphql-yoga-csrf', 'apollo-require-preflight'])(
    'upload a package with %s',
    async (header) => {
      const { body, contentType } = await packageUpload(samplePackage);
      const from = stack.vro.requests.length;
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': contentType, [header]: '1' },
        body,
      });
      expect(response.status).toBe(200);
      expect(stack.vro.requests.length).toBe(from + 1);
    },
  );

  it('cannot upload a package without one: vRO receives nothing', async () => {
    const { body, contentType } = await packageUpload(samplePackage);
    const before = stack.vro.requests.length;
    await expectRefused(
      await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
      }),
      400,
      'BAD_USER_INPUT',
    );
    expect(stack.vro.requests.length).toBe(before);
  });
});

describe('origins with GATEWAY_TOKENS', () => {
  let guarded: Stack;
  let served: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    guarded = await startStack({ env: { CORS_ORIGINS: frontEnd, GATEWAY_TOKENS: 'tok-1' } });
    served = await listen(guarded.gateway);
  });
  afterAll(async () => {
    await served.close();
    await guarded.close();
  });

  it('answers a listed front-end preflight without a token (browsers send none in it)', async () => {
    const response = await fetch(`${served.url}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: frontEnd, 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(frontEnd);
  });

  it('lets a listed front-end read the 401 of a missing token, and run with one', async () => {
    const refused = await fetch(`${served.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: frontEnd },
      body: JSON.stringify({ query }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(frontEnd);
    const accepted = await fetch(`${served.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: frontEnd,
        authorization: 'Bearer tok-1',
      },
      body: JSON.stringify({ query }),
    });
    expect(accepted.status).toBe(200);
  });

  it('refuses a foreign page even with a valid token, calling no upstream', async () => {
    const before = upstreamCalls(guarded);
    const response = await fetch(`${served.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: 'http://evil.example',
        authorization: 'Bearer tok-1',
      },
      body: JSON.stringify({ query: mutation() }),
    });
    expect(response.status).toBe(403);
    expect(upstreamCalls(guarded)).toBe(before);
  });
});
