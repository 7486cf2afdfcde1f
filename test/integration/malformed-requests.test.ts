import { createServer, type RequestListener } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capBodies } from '../../src/plugins/request-limits.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

let stack: Stack;
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  stack = await startStack();
  server = await listen(stack.gateway);
});
afterAll(async () => {
  await server.close();
  await stack.close();
});

/** Writes `head` (and `body`) as is on a fresh socket; resolves with everything the server sent. */
function exchange(head: string, body = ''): Promise<string> {
  const port = Number(new URL(server.url).port);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
    socket.write(`${head}\r\n\r\n${body}`);
    setTimeout(() => socket.end(), 2000).unref();
  });
}

const statusOf = (raw: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);

/** Nothing that tells an attacker how the gateway is built. */
function expectNoInternals(raw: string): void {
  expect(raw).not.toMatch(/\n\s+at /);
  expect(raw).not.toMatch(/\.(ts|js|mjs|cjs):\d+/);
  expect(raw).not.toContain('node_modules');
  expect(raw).not.toContain('/src/');
  expect(raw).not.toMatch(/TypeError|ReferenceError/);
}

describe('a malformed request', () => {
  it.each([
    ['an asterisk target', 'GET * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close'],
    ['an OPTIONS asterisk target', 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close'],
    [
      'an absolute-form target',
      'GET http://x/graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close',
    ],
    [
      'a Host that is no host',
      'GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: [bad\r\nConnection: close',
    ],
    ['a Host with a path', 'GET /health HTTP/1.1\r\nHost: a/b@c\r\nConnection: close'],
  ])('is answered 400 without a stack trace or a file path: %s', async (_what, head) => {
    const raw = await exchange(head);
    expect(statusOf(raw)).toBe(400);
    expectNoInternals(raw);
  });

  it.each([
    ['an array', '[1,2]'],
    ['a path that is no string', '{"0":[1]}'],
    ['not JSON', '{'],
    ['a path into nothing', '{"0":["variables.f.x.y"]}'],
  ])(
    'multipart map that is %s is answered 400 (BAD_USER_INPUT) and reaches no upstream',
    async (_what, map) => {
      const form = new FormData();
      form.append(
        'operations',
        JSON.stringify({
          query: 'mutation($f: File!) { importPackage(file: $f) { imported } }',
          variables: { f: null },
        }),
      );
      form.append('map', map);
      form.append('0', new File([new Uint8Array([1, 2, 3])], 'a.package'));
      const encoded = new Response(form);
      const body = Buffer.from(await encoded.arrayBuffer());
      const before = stack.vro.requests.length;
      const raw = await exchange(
        `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\ncontent-type: ${encoded.headers.get('content-type')}\r\ncontent-length: ${body.length}`,
        body.toString('latin1'),
      );
      expect(statusOf(raw)).toBe(400);
      expect(raw).toContain('BAD_USER_INPUT');
      expectNoInternals(raw);
      expect(stack.vro.requests.length).toBe(before);
    },
  );
});

describe('a failure of the server adapter itself', () => {
  const stackTrace =
    'TypeError: Invalid URL\n    at normalizeNodeRequest (/app/node_modules/x/utils.js:10:5)';
  const failing: Record<string, RequestListener> = {
    headers: (_request, response) => {
      response.setHeader('content-type', 'text/plain;charset=UTF-8');
      response.writeHead(500);
      response.end(stackTrace);
    },
    'single head': (_request, response) => {
      response.writeHead(500, 'Internal Server Error', {
        'content-type': 'text/plain;charset=UTF-8',
      });
      response.write(stackTrace);
      response.end();
    },
  };

  it.each(Object.keys(failing))(
    'goes out as a JSON error without its stack trace (%s)',
    async (kind) => {
      const plain = createServer(capBodies(failing[kind] as RequestListener));
      await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
      try {
        const answer = await fetch(
          `http://127.0.0.1:${(plain.address() as AddressInfo).port}/graphql`,
        );
        expect(answer.status).toBe(500);
        const body = await answer.text();
        expect(JSON.parse(body)).toEqual({
          errors: [{ message: expect.any(String), extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
        });
        expectNoInternals(body);
      } finally {
        plain.close();
      }
    },
  );

  it('leaves the gateway’s own JSON answers of 500 as they are', async () => {
    const plain = createServer(
      capBodies((_request, response) => {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end('{"errors":[{"message":"mine"}]}');
      }),
    );
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await fetch(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`);
      expect(await answer.text()).toBe('{"errors":[{"message":"mine"}]}');
    } finally {
      plain.close();
    }
  });
});
