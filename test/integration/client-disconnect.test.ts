import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';
import { sleep, until } from '../helpers/wait.ts';

interface LogLine {
  level: number;
  msg: string;
  status?: number;
  [field: string]: unknown;
}
const lines: LogLine[] = [];
let stack: Stack;
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  const logger = createLogger('debug', {
    write(line: string) {
      lines.push(JSON.parse(line) as LogLine);
    },
  });
  stack = await startStack({ logger });
  server = await listen(stack.gateway);
});
afterAll(async () => {
  await server.close();
  await stack.close();
});

describe('a client that goes away', () => {
  it('aborts the upstream request it was waiting for', async () => {
    const seam = stack.gateway.clients.vro.seam;
    stack.vro.faults.inject({ fault: { kind: 'delay', ms: 60_000 }, path: /\/workflows$/ });
    const arrival = stack.vro.nextRequest({ path: /\/workflows$/ });
    const controller = new AbortController();
    const pending = fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ workflows(first: 1) { totalCount } }' }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    const { ended } = await arrival;
    expect(seam.health.running).toBe(1);
    controller.abort();
    await pending;
    // the gateway closed its upstream connection: vRO saw the caller leave, not an answer
    expect(await ended).toBe('gone');
    expect(seam.health.running).toBe(0);
    const metrics = await (await stack.fetch('/metrics')).text();
    expect(metrics).toMatch(
      /upstream_request_duration_seconds_count\{[^}]*outcome="client-gone"[^}]*\} 1/,
    );
    stack.vro.faults.clear();
  });

  it('is logged as a client that closed the request (499, no error line), counted as no 500, and stops the upstream call at once', async () => {
    const seam = stack.gateway.clients.vro.seam;
    stack.vro.faults.inject({ fault: { kind: 'delay', ms: 60_000 }, path: /\/workflows$/ });
    const arrival = stack.vro.nextRequest({ path: /\/workflows$/ });
    const from = lines.length;
    const body = JSON.stringify({
      query: 'query Gone { workflows(first: 1) { totalCount } }',
      operationName: 'Gone',
    });
    // A raw socket: the client sends its request and closes, as a browser tab does.
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    const { ended } = await arrival;
    socket.destroy();
    const left = Date.now();
    const how = await ended;
    stack.vro.faults.clear();
    expect(how).toBe('gone');
    expect(Date.now() - left).toBeLessThan(1000);
    await until(() => seam.health.running === 0);
    const recorded = (): LogLine | undefined =>
      lines
        .slice(from)
        .find((line) => line.msg === 'graphql request' && line['operationName'] === 'Gone');
    await until(() => recorded() !== undefined);
    expect(recorded()?.status).toBe(499);
    expect(recorded()?.['ended']).toBe('client-gone');
    await sleep(200);
    const written = lines.slice(from);
    expect(written.filter((line) => line.level >= 50)).toEqual([]);
    expect(JSON.stringify(written)).not.toContain('TypeError');
    const metrics = await (await stack.fetch('/metrics')).text();
    expect(metrics).toMatch(
      /graphql_operation_duration_seconds_count\{[^}]*operation_name="Gone"[^}]*outcome="client-gone"[^}]*\} 1/,
    );
    expect(metrics).not.toMatch(/operation_name="Gone"[^}]*outcome="error"/);
  });

  it('leaves the gateway serving the next request', async () => {
    const answer = await stack.gql<{ workflows: { totalCount: number } }>(
      '{ workflows(first: 1) { totalCount } }',
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.workflows.totalCount).toBeGreaterThan(0);
  });
});
