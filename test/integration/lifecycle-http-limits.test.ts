import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { sleep } from '../helpers/wait.ts';

const started: SpawnedGateway[] = [];
const sockets: Socket[] = [];
afterAll(() => {
  for (const socket of sockets) socket.destroy();
  for (const gateway of started) gateway.kill();
});

async function start(
  env: Record<string, string>,
): Promise<{ gateway: SpawnedGateway; port: number }> {
  const gateway = spawnGateway({ PORT: '0', LOG_LEVEL: 'info', ...env });
  started.push(gateway);
  return { gateway, port: await gateway.port() };
}

/** A connection that has been accepted and sends nothing (or only what the test writes). */
async function openConnection(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

/** Resolves with what the server sent before it closed the connection, and when it closed it. */
function closing(socket: Socket): Promise<{ received: string; at: number }> {
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  return new Promise((resolve) =>
    socket.once('close', () => resolve({ received, at: Date.now() })),
  );
}

/** A tiny query from another loopback address (127.0.0.2): what another client sees. */
function tinyQueryFromElsewhere(port: number): Promise<{ status: number | undefined; ms: number }> {
  const body = JSON.stringify({ query: '{ __typename }' });
  const began = Date.now();
  return new Promise((resolve) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        localAddress: '127.0.0.2',
        method: 'POST',
        path: '/graphql',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (answer) => {
        answer.resume();
        answer.once('end', () => resolve({ status: answer.statusCode, ms: Date.now() - began }));
      },
    );
    outgoing.once('error', () => resolve({ status: undefined, ms: Date.now() - began }));
    outgoing.end(body);
  });
}

const health = (port: number) => rawRequest(new URL(`http://127.0.0.1:${port}/health`), 'GET');

describe('the HTTP server’s limits', () => {
  it('closes a connection whose headers trickle in slower than HTTP_HEADERS_TIMEOUT_MS (408), while other requests are served', async () => {
    const { port } = await start({ HTTP_HEADERS_TIMEOUT_MS: '1000' });
    const socket = await openConnection(port);
    const closed = closing(socket);
    const opened = Date.now();
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // One header byte every 100 ms: the connection is never idle, the header block never ends.
    const drip = setInterval(() => socket.write('x'), 100);
    try {
      expect((await health(port)).status).toBe(200);
      const { received, at } = await closed;
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(at - opened).toBeGreaterThanOrEqual(900);
      // The timeout, plus the server's check interval (a tenth of it) and some slack.
      expect(at - opened).toBeLessThan(2500);
    } finally {
      clearInterval(drip);
    }
  });

  it('closes connections beyond HTTP_MAX_CONNECTIONS at once, and serves again when one goes', async () => {
    const { port, gateway } = await start({ HTTP_MAX_CONNECTIONS: '4' });
    const held = [
      await openConnection(port),
      await openConnection(port),
      await openConnection(port),
    ];
    // Three idle connections held: a fourth, ordinary request is served.
    expect((await health(port)).status).toBe(200);

    held.push(await openConnection(port));
    await sleep(50);
    const over = await health(port).catch(() => ({ status: undefined, ended: 'refused' }));
    expect(over.status).toBeUndefined();

    held[0]?.destroy();
    await sleep(100);
    expect((await health(port)).status).toBe(200);
    await gateway.waitForLog((line) => line.msg.includes('HTTP_MAX_CONNECTIONS'));
  });

  it('closes a request whose body trickles in beyond HTTP_REQUEST_TIMEOUT_MS (408)', async () => {
    const { port } = await start({
      HTTP_HEADERS_TIMEOUT_MS: '300',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
      // Ten bytes a second keep up this rate: only the request timeout cuts the body.
      MIN_BODY_BYTES_PER_SECOND: '1',
    });
    const socket = await openConnection(port);
    const closed = closing(socket);
    const opened = Date.now();
    socket.write(
      'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{',
    );
    const drip = setInterval(() => socket.write(' '), 100);
    try {
      const { received, at } = await closed;
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(at - opened).toBeGreaterThanOrEqual(900);
      expect(at - opened).toBeLessThan(2500);
    } finally {
      clearInterval(drip);
    }
  });

  it('answers another client’s tiny query within a second while one address holds 1,000 connections trickling their bodies', async () => {
    // Every limit at its default: HTTP_MAX_CONNECTIONS is 1,000, HTTP_REQUEST_TIMEOUT_MS 300 s.
    const { port, gateway } = await start({});
    const attack: Socket[] = [];
    for (let i = 0; i < 1000; i += 1) attack.push(await openConnection(port));
    for (const socket of attack) {
      socket.write(
        'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"query":',
      );
    }
    const answer = await tinyQueryFromElsewhere(port);
    expect(answer.status).toBe(200);
    expect(answer.ms).toBeLessThan(1000);
    await gateway.waitForLog((line) => line.msg.includes('MAX_CONNECTIONS_PER_ADDRESS'));
    for (const socket of attack) socket.destroy();
  });

  it('closes a body that trickles below MIN_BODY_BYTES_PER_SECOND (408) within seconds, not HTTP_REQUEST_TIMEOUT_MS', async () => {
    const { port } = await start({});
    const socket = await openConnection(port);
    const closed = closing(socket);
    const opened = Date.now();
    socket.write(
      'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"query":',
    );
    // 10 bytes a second, never idle: only a rate catches it.
    const drip = setInterval(() => socket.write(' '), 100);
    try {
      const outcome = await Promise.race([closed, sleep(6000).then(() => undefined)]);
      expect(outcome?.received).toMatch(/^HTTP\/1\.1 408 /);
      expect(outcome?.received).toContain('MIN_BODY_BYTES_PER_SECOND');
      expect((outcome?.at ?? Infinity) - opened).toBeLessThan(4000);
    } finally {
      clearInterval(drip);
    }
  });

  it('serves a slow body that keeps up MIN_BODY_BYTES_PER_SECOND for two seconds', async () => {
    const { port } = await start({ MIN_BODY_BYTES_PER_SECOND: '1024' });
    const body = JSON.stringify({ query: '{ __typename }' }).padEnd(3000, ' ');
    const socket = await openConnection(port);
    const closed = closing(socket);
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    // 1,500 bytes a second.
    for (let at = 0; at < body.length; at += 300) {
      socket.write(body.slice(at, at + 300));
      await sleep(200);
    }
    const { received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toContain('"__typename":"Query"');
  });

  it('does not cut a subscription that outlives HTTP_REQUEST_TIMEOUT_MS', async () => {
    const { port } = await start({
      HTTP_HEADERS_TIMEOUT_MS: '300',
      HTTP_REQUEST_TIMEOUT_MS: '300',
    });
    const base = `http://127.0.0.1:${port}`;
    const workflowId = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
    const run = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation { runWorkflow(workflowId: "${workflowId}") { execution { id } } }`,
      }),
    });
    const ran = (await run.json()) as { data: { runWorkflow: { execution: { id: string } } } };
    const opened = Date.now();
    const subscription = await SseSubscription.open(
      base,
      `subscription($w: ID!, $e: ID!) { workflowExecution(workflowId: $w, executionId: $e) { state } }`,
      { w: workflowId, e: ran.data.runWorkflow.execution.id },
    );
    expect(subscription.status).toBe(200);
    const states: string[] = [];
    for (let event = await subscription.next(); event?.event === 'next';) {
      states.push(event.data.data.workflowExecution.state as string);
      event = await subscription.next();
    }
    // The built-in simulator takes about 2 s per step: many times the request timeout.
    expect(Date.now() - opened).toBeGreaterThan(1000);
    expect(states.at(-1)).toBe('COMPLETED');
  });
});

describe('start-up on a port in use', () => {
  let occupier: Server;
  afterAll(async () => {
    await new Promise((resolve) => occupier.close(resolve));
  });

  it('stops with exit code 1 and a message that names PORT, not a stack trace', async () => {
    occupier = createServer();
    await new Promise<void>((resolve) => occupier.listen(0, '127.0.0.1', () => resolve()));
    const { port } = occupier.address() as AddressInfo;
    const gateway = spawnGateway({ PORT: String(port), LOG_LEVEL: 'info' });
    started.push(gateway);
    expect(await gateway.exited).toBe(1);
    const failure = gateway.logs().find((line) => line.msg.startsWith('Cannot listen'));
    expect(failure?.msg).toContain(`127.0.0.1:${port}`);
    expect(failure?.msg).toContain('already in use');
    expect(failure?.msg).toContain('PORT');
    const output = [...gateway.stdout, ...gateway.stderr].join('\n');
    expect(output).not.toMatch(/\n\s+at /);
    expect(output).not.toContain('EADDRINUSE: address already in use');
  });
});
