import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Stack, startStack, upstreamCalls } from '../helpers/stack.ts';
import { packageUpload } from '../helpers/uploads.ts';

const samplePackage = readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url));
const maxRequestBytes = 2048;
const maxUploadBytes = samplePackage.length + 4096;
const query = '{ workflows(first: 1) { totalCount } }';

let stack: Stack;
let server: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  stack = await startStack({
    env: { MAX_REQUEST_BYTES: String(maxRequestBytes), MAX_UPLOAD_BYTES: String(maxUploadBytes) },
  });
  server = await listen(stack.gateway);
});
afterAll(async () => {
  await server.close();
  await stack.close();
});

/** Sends over the real socket (fetch declares the Content-Length of a byte body). */
function send(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, init);
}

function postJson(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return send('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function expectError(response: Response, status: number, code: string): Promise<string> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as {
    data?: unknown;
    errors: Array<{ message: string; extensions: { code: string } }>;
  };
  expect(body.data ?? null).toBeNull();
  expect(body.errors.map((e) => e.extensions.code)).toEqual([code]);
  return body.errors[0]?.message ?? '';
}

describe('request body limits', () => {
  it('refuses a JSON body over MAX_REQUEST_BYTES with 413 and BAD_USER_INPUT, calling no upstream', async () => {
    const before = upstreamCalls(stack);
    const message = await expectError(
      await postJson({ query, variables: { padding: 'x'.repeat(maxRequestBytes) } }),
      413,
      'BAD_USER_INPUT',
    );
    expect(message).toContain('MAX_REQUEST_BYTES');
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('runs a JSON body within MAX_REQUEST_BYTES', async () => {
    const response = await postJson({ query, variables: { padding: 'x'.repeat(1500) } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      data: { workflows: { totalCount: expect.any(Number) } },
    });
  });

  it('refuses an upload over MAX_UPLOAD_BYTES with 413 and BAD_USER_INPUT; vRO receives nothing', async () => {
    const big = Buffer.concat([samplePackage, Buffer.alloc(8192, 1)]);
    const { body, contentType } = await packageUpload(big);
    const before = stack.vro.requests.length;
    const message = await expectError(
      await send('/graphql', {
        method: 'POST',
        headers: { 'content-type': contentType, 'x-graphql-csrf': '1' },
        body,
      }),
      413,
      'BAD_USER_INPUT',
    );
    expect(message).toContain('MAX_UPLOAD_BYTES');
    expect(stack.vro.requests.length).toBe(before);
  });

  it('passes an upload within MAX_UPLOAD_BYTES (above MAX_REQUEST_BYTES) on to vRO', async () => {
    const { body, contentType } = await packageUpload(samplePackage);
    expect(body.length).toBeGreaterThan(maxRequestBytes);
    const from = stack.vro.requests.length;
    const response = await send('/graphql', {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-graphql-csrf': '1' },
      body,
    });
    const answer = (await response.json()) as { errors?: unknown; data: any };
    expect(answer.errors).toBeUndefined();
    expect(answer.data.importPackage.imported).toBe(true);
    const sent = stack.vro.requests.slice(from);
    expect(sent.map((r) => `${r.method} ${r.rawPath}`)).toEqual(['POST /vco/api/packages']);
  });

  it("passes on an upload of more than 25 MB (yoga's own cap) under the default MAX_UPLOAD_BYTES", async () => {
    const roomy = await startStack();
    const served = await listen(roomy.gateway);
    try {
      const { body, contentType } = await packageUpload(
        Buffer.concat([samplePackage, Buffer.alloc(26_000_000)]),
      );
      const response = await fetch(`${served.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': contentType, 'x-graphql-csrf': '1' },
        body,
      });
      expect(response.status).not.toBe(413);
      await response.body?.cancel();
      const sent = roomy.vro.requests.filter((r) => r.method === 'POST');
      expect(sent).toHaveLength(1);
      expect(sent[0]?.body.length).toBeGreaterThan(26_000_000);
    } finally {
      await served.close();
      await roomy.close();
    }
  });

  it('answers 411 to a POST that does not declare its Content-Length, calling no upstream', async () => {
    const before = upstreamCalls(stack);
    const { status, body } = await new Promise<{ status: number; body: string }>(
      (resolve, reject) => {
        const url = new URL('/graphql', server.url);
        const outgoing = httpRequest(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        });
        outgoing.on('response', (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('end', () =>
            resolve({
              status: incoming.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        });
        outgoing.on('error', reject);
        outgoing.write(JSON.stringify({ query }).slice(0, 10));
        outgoing.end(JSON.stringify({ query }).slice(10));
      },
    );
    expect(status).toBe(411);
    expect(JSON.parse(body).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(upstreamCalls(stack)).toBe(before);
  });
});
