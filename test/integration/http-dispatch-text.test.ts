import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyTooLargeError, dispatchForText } from '../../src/http/dispatch-text.ts';
import { sendText, startSimServer, type SimServer } from '../../simulators/sim-server.ts';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

async function serve(handler: Parameters<typeof startSimServer>[0]): Promise<SimServer> {
  const server = await startSimServer(handler);
  open.push(server);
  return server;
}

function poolOf(server: SimServer, connections = 4): Pool {
  const pool = new Pool(server.origin, { connections });
  open.push(pool);
  return pool;
}

const never = new AbortController().signal;

describe('dispatchForText', () => {
  it('answers the status, the headers and the whole body, sent in many chunks', async () => {
    const text = 'é'.repeat(100_000);
    const server = await serve((_request, response) =>
      sendText(response, 201, text, 'text/plain', { 'x-seen': 'yes' }),
    );
    const answer = await dispatchForText(
      poolOf(server),
      { method: 'GET', path: '/a' },
      never,
      1_000_000,
    );
    expect(answer.status).toBe(201);
    expect(answer.headers['x-seen']).toBe('yes');
    expect(answer.body).toBe(text);
  });

  it('aborts the request and rejects with BodyTooLargeError past the limit', async () => {
    let closed = false;
    const server = await serve((_request, response) => {
      response.on('close', () => (closed = true));
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('x'.repeat(2000));
      // the rest never comes: only the abort can end this request
    });
    const failure = dispatchForText(poolOf(server), { method: 'GET', path: '/big' }, never, 1000);
    await expect(failure).rejects.toBeInstanceOf(BodyTooLargeError);
    await expect(failure).rejects.toMatchObject({ status: 200, limit: 1000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(true);
  });

  it('rejects with the reason of a signal that is already aborted, sending nothing', async () => {
    const server = await serve((_request, response) => sendText(response, 200, 'ok', 'text/plain'));
    const controller = new AbortController();
    const reason = new Error('gone');
    controller.abort(reason);
    await expect(
      dispatchForText(poolOf(server), { method: 'GET', path: '/a' }, controller.signal, 100),
    ).rejects.toBe(reason);
    expect(server.requests).toHaveLength(0);
  });

  it('never sends a request whose signal aborts while it waits for a pooled connection', async () => {
    const server = await serve((request, response) => {
      if (request.path === '/slow')
        setTimeout(() => sendText(response, 200, 'slow', 'text/plain'), 200);
      else sendText(response, 200, 'fast', 'text/plain');
    });
    const pool = poolOf(server, 1);
    const slow = dispatchForText(pool, { method: 'GET', path: '/slow' }, never, 100);
    const controller = new AbortController();
    const queued = dispatchForText(
      pool,
      { method: 'GET', path: '/queued' },
      controller.signal,
      100,
    );
    const reason = new Error('client gone');
    controller.abort(reason);
    await expect(queued).rejects.toBe(reason);
    expect((await slow).body).toBe('slow');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests.map((r) => r.path)).toEqual(['/slow']);
  });

  it("rejects with undici's error when the connection closes mid-body", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
      response.write('half');
      setTimeout(() => response.socket?.destroy(), 10);
    });
    await expect(
      dispatchForText(poolOf(server), { method: 'GET', path: '/cut' }, never, 1000),
    ).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
  });
});
