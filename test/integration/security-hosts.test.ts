import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, startStack, upstreamCalls, type Stack } from '../helpers/stack.ts';
import { packageUpload } from '../helpers/uploads.ts';

/**
 * DNS rebinding: a page of http://evil.test whose name is made to resolve to
 * the gateway's address. Its browser sends `Host: evil.test` and `Origin:
 * http://evil.test`, same-origin as far as the browser knows.
 */
const evil = 'evil.test';
const token = 'hosts-test-token-0123456789';
const samplePackage = readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url));
let created = 0;
const mutation = (): string =>
  `mutation { createIpSet(scopeId: "globalroot-0", input: { name: "rebound-${++created}", addresses: ["10.0.0.1"] }) { id } }`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on the gateway's port with exactly this `Host` header, as a browser would send it. */
function send(
  base: string,
  host: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: init.method ?? 'GET',
        headers: {
          host,
          ...(init.body === undefined ? {} : { 'content-length': String(init.body.length) }),
          ...init.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        // A stream that was let through is read for a moment only.
        const timer = setTimeout(() => res.destroy(), 300);
        const done = () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        };
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** The browser of a page on `origin` (e.g. http://evil.test) posting JSON. */
const postJson = (origin: string, document: string, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', origin, ...headers },
  body: JSON.stringify({ query: document }),
});

function expectMisdirected(answer: Answer): void {
  expect(answer.status).toBe(421);
  expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  const body = JSON.parse(answer.body) as { errors: Array<{ extensions: { code: string } }> };
  expect(body.errors.map((e) => e.extensions.code)).toEqual(['FORBIDDEN']);
}

describe('a gateway with no credential configured (the local default)', () => {
  let stack: Stack;
  let server: Awaited<ReturnType<typeof listen>>;
  let port: string;

  beforeAll(async () => {
    stack = await startStack();
    server = await listen(stack.gateway);
    port = new URL(server.url).port;
  });
  afterAll(async () => {
    await server.close();
    await stack.close();
  });

  it('answers a rebinding page 421 through POST, GET, multipart and both SSE modes, in parallel, and no appliance hears anything', async () => {
    const before = upstreamCalls(stack);
    const origin = `http://${evil}:${port}`;
    const host = `${evil}:${port}`;
    const { body: upload, contentType } = await packageUpload(samplePackage);
    const subscription =
      'subscription { workflowExecution(workflowId: "w", executionId: "e") { state } }';
    const attempts = await Promise.all([
      send(server.url, host, '/graphql', postJson(origin, mutation())),
      send(server.url, host, '/graphql', {
        method: 'POST',
        headers: { 'content-type': 'text/plain', origin },
        body: JSON.stringify({ query: mutation() }),
      }),
      send(server.url, host, `/graphql?query=${encodeURIComponent(mutation())}`, {
        headers: { accept: 'application/json', origin },
      }),
      send(server.url, host, '/graphql', {
        method: 'POST',
        headers: { 'content-type': contentType, origin, 'x-graphql-csrf': '1' },
        body: upload,
      }),
      send(server.url, host, '/graphql', {
        ...postJson(origin, subscription, { accept: 'text/event-stream' }),
      }),
      send(server.url, host, `/graphql?query=${encodeURIComponent(subscription)}`, {
        headers: { accept: 'text/event-stream', origin },
      }),
      send(server.url, host, '/graphql', { method: 'PUT', headers: { origin } }),
      send(server.url, host, '/graphql', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      }),
      send(server.url, host, '/graphql', {
        ...postJson(origin, mutation(), {
          accept: 'text/event-stream',
          'x-graphql-event-stream-token': 'guessed',
        }),
      }),
      send(server.url, host, '/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify([{ query: mutation() }, { query: mutation() }]),
      }),
    ]);
    for (const answer of attempts) expectMisdirected(answer);
    expect(upstreamCalls(stack)).toBe(before);
  });

  it.each([
    ['the bare name', evil],
    ['another port', `${evil}:80`],
    ['upper case', 'EVIL.TEST'],
    ['a trailing dot', `${evil}.`],
    ['a name made of digits and a name', '127.0.0.1.evil.test'],
    ['a name that starts like localhost', 'localhost.evil.test'],
    ['a sub-domain of localhost served by DNS', 'evil.localhost.test'],
  ])('refuses %s (Host: %s) on every path, and runs nothing', async (_what, host) => {
    const before = upstreamCalls(stack);
    const origin = `http://${host.replace(/:\d+$/, '')}`;
    const answers = await Promise.all([
      send(server.url, host, '/graphql', postJson(origin, mutation())),
      send(server.url, host, '/graphql', { headers: { accept: 'text/html' } }),
      send(server.url, host, '/portal/'),
      send(server.url, host, '/graphiql-assets/graphiql.js'),
      send(server.url, host, '/health'),
      send(server.url, host, '/ready'),
      send(server.url, host, '/metrics'),
    ]);
    for (const answer of answers) expectMisdirected(answer);
    expect(upstreamCalls(stack)).toBe(before);
  });

  it.each([
    ['IPv4 loopback', () => `127.0.0.1:${port}`],
    ['IPv6 loopback', () => `[::1]:${port}`],
    ['localhost', () => `localhost:${port}`],
    ['localhost without a port', () => 'localhost'],
    ['another IP address (the pod address of a probe)', () => '10.1.2.3:4000'],
  ])('runs a mutation for %s', async (_what, hostOf) => {
    const host = hostOf();
    const from = stack.nsx.requests.length;
    const answer = await send(server.url, host, '/graphql', postJson(`http://${host}`, mutation()));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      data: { createIpSet: { id: expect.any(String) } },
    });
    expect(stack.nsx.requests.slice(from).filter((r) => r.method === 'POST')).toHaveLength(1);
    const health = await send(server.url, host, '/health');
    expect(health.status).toBe(200);
  });
});

describe('ALLOWED_HOSTS', () => {
  let stack: Stack;
  let server: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    stack = await startStack({
      env: { ALLOWED_HOSTS: 'gateway.example.com, dev.example.com:8443' },
    });
    server = await listen(stack.gateway);
  });
  afterAll(async () => {
    await server.close();
    await stack.close();
  });

  it.each([
    ['a listed name, any port', 'gateway.example.com:4000'],
    ['a listed name without a port', 'gateway.example.com'],
    ['a listed name in upper case', 'Gateway.Example.COM'],
    ['a listed name with its port', 'dev.example.com:8443'],
  ])('runs a mutation for %s (%s)', async (_what, host) => {
    const from = stack.nsx.requests.length;
    const answer = await send(
      server.url,
      host,
      '/graphql',
      postJson(`http://${host.toLowerCase()}`, mutation()),
    );
    expect(answer.status).toBe(200);
    expect(stack.nsx.requests.slice(from).filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it.each([
    ['a listed name on another port than its entry', 'dev.example.com:9000'],
    ['a listed name without the port its entry names', 'dev.example.com'],
    ['a sub-domain of a listed name', 'evil.gateway.example.com'],
    ['a name that ends like a listed one', 'evilgateway.example.com'],
    ['a rebinding name', evil],
  ])('answers %s (%s) 421, and runs nothing', async (_what, host) => {
    const before = upstreamCalls(stack);
    expectMisdirected(
      await send(server.url, host, '/graphql', postJson(`http://${host}`, mutation())),
    );
    expect(upstreamCalls(stack)).toBe(before);
  });
});

describe('a gateway with credentials configured', () => {
  const startWith = async (env: Record<string, string>) => {
    const stack = await startStack({ env: { GATEWAY_TOKENS: token, ...env } });
    return { stack, server: await listen(stack.gateway) };
  };
  const authorized = (host: string) =>
    postJson(`http://${host}`, mutation(), { authorization: `Bearer ${token}` });

  it('answers any host name while ALLOWED_HOSTS is unset (a token is what protects it)', async () => {
    const { stack, server } = await startWith({});
    try {
      const from = stack.nsx.requests.length;
      const answer = await send(
        server.url,
        'gateway.internal',
        '/graphql',
        authorized('gateway.internal'),
      );
      expect(answer.status).toBe(200);
      expect(stack.nsx.requests.slice(from).filter((r) => r.method === 'POST')).toHaveLength(1);
    } finally {
      await server.close();
      await stack.close();
    }
  });

  it('answers only ALLOWED_HOSTS once it is set, even a caller with a valid token', async () => {
    const { stack, server } = await startWith({ ALLOWED_HOSTS: 'gateway.example.com' });
    try {
      const before = upstreamCalls(stack);
      expectMisdirected(
        await send(server.url, 'gateway.internal', '/graphql', authorized('gateway.internal')),
      );
      expect(upstreamCalls(stack)).toBe(before);
      const allowed = await send(
        server.url,
        'gateway.example.com',
        '/graphql',
        authorized('gateway.example.com'),
      );
      expect(allowed.status).toBe(200);
    } finally {
      await server.close();
      await stack.close();
    }
  });
});
