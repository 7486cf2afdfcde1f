import { connect } from 'node:net';
import { afterAll, describe, it, type ExpectStatic } from 'vitest';
import { bodyText, rawRequest } from '../helpers/raw-http.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { sleep } from '../helpers/wait.ts';

const started: SpawnedGateway[] = [];
afterAll(() => {
  for (const gateway of started) gateway.kill();
});

function start(env: Record<string, string>): SpawnedGateway {
  const gateway = spawnGateway({ PORT: '0', LOG_LEVEL: 'info', ...env });
  started.push(gateway);
  return gateway;
}

/** The value of one Prometheus sample, e.g. `upstream_requests_in_flight{service="vro",state="running"}`. */
async function metric(base: string, sample: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? Number.NaN : Number(line.slice(sample.length + 1));
}

/** One request over a new connection: its status and JSON body. */
async function onNewConnection(
  port: number,
  path: string,
  init: { method?: string; body?: string } = {},
): Promise<{ status: number | undefined; connection: string | undefined; body: any }> {
  const headers: Record<string, string> =
    init.body === undefined
      ? {}
      : { 'content-type': 'application/json', 'content-length': String(init.body.length) };
  const exchange = await rawRequest(
    new URL(`http://127.0.0.1:${port}${path}`),
    init.method ?? 'GET',
    headers,
    init.body,
  );
  const text = bodyText(exchange);
  return {
    status: exchange.status,
    connection: exchange.headers['connection'],
    body: text === '' ? undefined : JSON.parse(text),
  };
}

async function waitUntil(check: () => Promise<boolean>, expect: ExpectStatic): Promise<void> {
  for (let tries = 0; !(await check()); tries += 1) {
    expect(tries).toBeLessThan(500);
    await sleep(10);
  }
}

describe('SIGTERM', () => {
  it('lets the request in flight finish with its data, answers 503 to new requests (/ready included), then exits 0', async ({
    expect,
  }) => {
    // Every simulator answers 3 s late: the query below is in flight when SIGTERM comes.
    const gateway = start({ SIMULATOR_LATENCY_MS: '3000', READY_PROBE_INTERVAL_MS: '100' });
    const port = await gateway.port();
    const base = `http://127.0.0.1:${port}`;

    // /ready probes the (slow) simulators, so it is in flight as well and answers after SIGTERM.
    const ready = fetch(`${base}/ready`);
    const query = fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ workflows(first: 1) { totalCount } }' }),
    });
    await waitUntil(
      async () =>
        (await metric(base, 'upstream_requests_in_flight{service="vro",state="running"}')) === 1,
      expect,
    );

    gateway.child.kill('SIGTERM');
    await gateway.waitForLog((line) => line.msg.startsWith('draining'));
    // The port stays open while draining: a load balancer's probe reads 503, not a refused connection.
    const probe = await onNewConnection(port, '/ready');
    expect(probe.status).toBe(503);
    expect(probe.body.status).toBe('draining');
    expect(probe.connection).toBe('close');
    expect((await onNewConnection(port, '/health')).status).toBe(200);
    const late = await onNewConnection(port, '/graphql', {
      method: 'POST',
      body: JSON.stringify({ query: '{ workflows(first: 1) { totalCount } }' }),
    });
    expect(late.status).toBe(503);
    expect(late.body.errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(late.connection).toBe('close');

    const answer = await query;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('connection')).toBe('close');
    expect(await answer.json()).toEqual({ data: { workflows: { totalCount: 61 } } });

    const readiness = await ready;
    expect(readiness.status).toBe(503);
    expect(((await readiness.json()) as { status: string }).status).toBe('draining');

    expect(await gateway.exited).toBe(0);
    const messages = gateway.logs().map((line) => line.msg);
    expect(messages).toContain('stopped');
    expect(messages).not.toContain('grace period over: closing the connections still open');
    // The request log's line of the request finished while draining is written before the exit.
    expect(
      gateway
        .logs()
        .filter((line) => line.msg === 'graphql request')
        .map(({ status, operationType }) => ({ status, operationType })),
    ).toEqual([{ status: 200, operationType: 'query' }]);
  });

  it('does not wait for an idle kept-alive connection', async ({ expect }) => {
    const gateway = start({ SHUTDOWN_GRACE_MS: '600000' });
    const port = await gateway.port();
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    await closed;
  });

  it('does not let an open subscription hold the process beyond SHUTDOWN_GRACE_MS', async ({
    expect,
  }) => {
    const gateway = start({ SHUTDOWN_GRACE_MS: '300' });
    const base = `http://127.0.0.1:${await gateway.port()}`;
    const run = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'mutation { runWorkflow(workflowId: "aefcfad8-efc8-4849-b3aa-7efe4458a885") { execution { id } } }',
      }),
    });
    const ran = (await run.json()) as { data: { runWorkflow: { execution: { id: string } } } };
    const executionId = ran.data.runWorkflow.execution.id;
    // The built-in simulator takes seconds to finish the run: the subscription stays open.
    const subscription = await SseSubscription.open(
      base,
      `subscription($e: ID!) {
        workflowExecution(workflowId: "aefcfad8-efc8-4849-b3aa-7efe4458a885", executionId: $e) { state }
      }`,
      { e: executionId },
    );
    expect(subscription.status).toBe(200);
    expect((await subscription.next())?.event).toBe('next');

    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    const messages = gateway.logs().map((line) => line.msg);
    expect(messages).toContain('grace period over: closing the connections still open');
    expect(messages).toContain('stopped');
    const rest = await subscription.next().then(
      (event) => event,
      () => 'ended' as const,
    );
    expect([null, 'ended']).toContain(rest);
  });
});
