import { afterEach, describe, expect, it } from 'vitest';
import {
  UpstreamStatusError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  UpstreamBadResponseError,
} from '../../src/errors.ts';
import {
  ClientGoneError,
  UpstreamHttp,
  type UpstreamHttpOptions,
} from '../../src/http/upstream-http.ts';
import {
  startSimServer,
  sendText,
  type SimHandler,
  type SimServer,
} from '../../simulators/sim-server.ts';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function serve(handler: SimHandler): Promise<SimServer> {
  const server = await startSimServer(handler);
  open.push(server);
  return server;
}

function client(server: SimServer, options: Partial<UpstreamHttpOptions> = {}): UpstreamHttp {
  const http = new UpstreamHttp({
    service: 'vro',
    baseUrl: new URL(`${server.origin}/api`),
    timeoutMs: 2000,
    readErrorBody: (body) => ({ code: null, message: body.slice(0, 20) }),
    retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
  open.push(http);
  return http;
}

const call = () => ({ signal: new AbortController().signal, requestId: 'req-1' });

describe('the upstream HTTP seam', () => {
  it('sends the request id, the authorization and the encoded query below the API root', async () => {
    const server = await serve((_r, res) => sendText(res, 200, 'ok', 'text/plain'));
    const answer = await client(server).request(call(), {
      method: 'GET',
      path: '/workflows',
      route: '/workflows',
      query: { conditions: 'name~a b,categoryName=x', skipped: undefined },
      authorization: 'Basic abc',
    });
    expect(answer.body).toBe('ok');
    const [received] = server.requests;
    expect(received?.rawPath).toBe('/api/workflows');
    expect(received?.query.get('conditions')).toBe('name~a b,categoryName=x');
    expect(received?.query.has('skipped')).toBe(false);
    expect(received?.headers['x-request-id']).toBe('req-1');
    expect(received?.headers.authorization).toBe('Basic abc');
  });

  it('retries a read on 503 and answers the later success', async () => {
    let calls = 0;
    const server = await serve((_r, res) => {
      calls += 1;
      if (calls < 3) sendText(res, 503, 'busy', 'text/plain');
      else sendText(res, 200, 'fine', 'text/plain');
    });
    const answer = await client(server).request(call(), { method: 'GET', path: '/x', route: '/x' });
    expect(answer.body).toBe('fine');
    expect(server.requests).toHaveLength(3);
  });

  it('never retries a POST, even on 503', async () => {
    const server = await serve((_r, res) => sendText(res, 503, 'busy', 'text/plain'));
    const failure = client(server).request(call(), {
      method: 'POST',
      path: '/x',
      route: '/x',
      body: 'b',
    });
    await expect(failure).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      upstream: { status: 503 },
    });
    expect(server.requests).toHaveLength(1);
  });

  it('honours Retry-After on 429 and gives up after the configured retries', async () => {
    const server = await serve((_r, res) =>
      sendText(res, 429, 'slow down', 'text/plain', { 'retry-after': '0' }),
    );
    const failure = client(server).request(call(), { method: 'GET', path: '/x', route: '/x' });
    await expect(failure).rejects.toBeInstanceOf(UpstreamStatusError);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry when Retry-After asks for more than the time left', async () => {
    const server = await serve((_r, res) =>
      sendText(res, 503, 'later', 'text/plain', { 'retry-after': '60' }),
    );
    await expect(
      client(server).request(call(), { method: 'GET', path: '/x', route: '/x' }),
    ).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
    });
    expect(server.requests).toHaveLength(1);
  });

  it('maps a 404 to NOT_FOUND with the upstream message read from the body', async () => {
    const server = await serve((_r, res) =>
      sendText(res, 404, 'no such workflow here', 'text/plain'),
    );
    await expect(
      client(server).request(call(), { method: 'GET', path: '/x', route: '/x' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      upstream: { service: 'vro', status: 404, code: null, message: 'no such workflow her' },
    });
  });

  it('answers UPSTREAM_TIMEOUT when no answer comes within the timeout', async () => {
    const server = await serve((_r, res) => {
      setTimeout(() => sendText(res, 200, 'late', 'text/plain'), 1000);
    });
    const failure = client(server, { timeoutMs: 100 }).request(call(), {
      method: 'GET',
      path: '/x',
      route: '/x',
    });
    await expect(failure).rejects.toBeInstanceOf(UpstreamTimeoutError);
  });

  it('answers UPSTREAM_UNAVAILABLE without the address when the connection is refused', async () => {
    const server = await serve((_r, res) => sendText(res, 200, '', 'text/plain'));
    const http = client(server);
    await server.close();
    const failure = await http
      .request(call(), { method: 'GET', path: '/x', route: '/x' })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(UpstreamUnavailableError);
    expect((failure as Error).message).not.toContain('127.0.0.1');
    expect((failure as Error).message).toContain('connection refused');
  });

  it('aborts the upstream request when the client goes away', async () => {
    let closed = false;
    const server = await serve((_request, res) => {
      res.on('close', () => {
        closed = true;
      });
    });
    const controller = new AbortController();
    const pending = client(server).request(
      { signal: controller.signal, requestId: 'r' },
      { method: 'GET', path: '/hang', route: '/hang' },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(ClientGoneError);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(true);
  });

  it('refuses a body larger than the limit as UPSTREAM_BAD_RESPONSE', async () => {
    const server = await serve((_r, res) => sendText(res, 200, 'x'.repeat(5000), 'text/plain'));
    const failure = client(server, { maxResponseBytes: 1000 }).request(call(), {
      method: 'GET',
      path: '/x',
      route: '/x',
    });
    await expect(failure).rejects.toBeInstanceOf(UpstreamBadResponseError);
  });

  it('opens the circuit after repeated failures, sheds calls, then closes after a good probe', async () => {
    let healthy = false;
    const server = await serve((_r, res) => sendText(res, healthy ? 200 : 500, 'x', 'text/plain'));
    const http = client(server, { circuit: { failureThreshold: 3, resetMs: 100 } });
    for (let i = 0; i < 3; i += 1) {
      await expect(
        http.request(call(), { method: 'POST', path: '/x', route: '/x' }),
      ).rejects.toMatchObject({
        code: 'UPSTREAM_ERROR',
      });
    }
    expect(http.health.circuit).toBe('open');
    await expect(
      http.request(call(), { method: 'GET', path: '/x', route: '/x' }),
    ).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      message: expect.stringContaining('shed') as unknown,
    });
    expect(server.requests).toHaveLength(3);
    healthy = true;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(http.health.circuit).toBe('half-open');
    await http.request(call(), { method: 'GET', path: '/x', route: '/x' });
    expect(http.health.circuit).toBe('closed');
  });

  it('lets exactly one probe reach a half-open upstream however many calls come at once', async () => {
    const server = await serve((_r, res) => sendText(res, 500, 'x', 'text/plain'));
    const http = client(server, { circuit: { failureThreshold: 2, resetMs: 100 } });
    const post = () => http.request(call(), { method: 'POST', path: '/x', route: '/x' });
    for (let i = 0; i < 2; i += 1)
      await expect(post()).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
    expect(http.health.circuit).toBe('open');
    await new Promise((resolve) => setTimeout(resolve, 120));
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, post));
    expect(server.requests).toHaveLength(3);
    const shed = outcomes.filter(
      (o) => o.status === 'rejected' && (o.reason as Error).message.includes('shed'),
    );
    expect(shed).toHaveLength(9);
    expect(http.health.circuit).toBe('open');
  });

  it('caps concurrent calls and fails fast when the waiting queue is full', async () => {
    const waiting: Array<() => void> = [];
    const server = await serve((_r, res) => {
      waiting.push(() => sendText(res, 200, 'ok', 'text/plain'));
    });
    const http = client(server, { concurrency: { maxConcurrent: 2, maxQueue: 1 } });
    const calls = [0, 1, 2].map(() =>
      http.request(call(), { method: 'GET', path: '/x', route: '/x' }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(http.health).toMatchObject({ running: 2, queued: 1 });
    await expect(
      http.request(call(), { method: 'GET', path: '/x', route: '/x' }),
    ).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
    });
    const settled = Promise.all(calls);
    const drain = setInterval(() => waiting.splice(0).forEach((send) => send()), 5);
    await settled.finally(() => clearInterval(drain));
    expect(server.requests).toHaveLength(3);
  });

  it('tells its observer of every attempt with the route template, never the path', async () => {
    const events: unknown[] = [];
    const server = await serve((_r, res) => sendText(res, 200, 'ok', 'text/plain'));
    await client(server, { observer: (e) => events.push(e) }).request(call(), {
      method: 'GET',
      path: '/workflows/abc',
      route: '/workflows/{id}',
    });
    expect(events).toEqual([
      expect.objectContaining({
        service: 'vro',
        method: 'GET',
        route: '/workflows/{id}',
        status: 200,
        outcome: 'ok',
        attempt: 1,
      }),
    ]);
  });
});
