import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';
import { until } from '../helpers/wait.ts';

const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
const follow = `subscription Follow($w: ID!, $e: ID!) {
  workflowExecution(workflowId: $w, executionId: $e) { id state }
}`;

interface LogLine {
  msg: string;
  requestId?: string;
  operationName?: string | null;
  operationType?: string | null;
  status?: number;
  durationMs?: number;
  upstreamCalls?: number;
  errorCodes?: string[];
  events?: number;
  ended?: string;
}

const lines: LogLine[] = [];
let stack: Stack;
let server: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  const logger = createLogger('info', {
    write(line: string) {
      lines.push(JSON.parse(line) as LogLine);
    },
  });
  stack = await startStack({ logger, vro: { manualClock: true, stepMs: 1000 } });
  server = await listen(stack.gateway);
});
afterAll(async () => {
  await server.close();
  await stack.close();
});
beforeEach(() => {
  lines.length = 0;
  stack.vro.faults.clear();
});

const requestLines = (requestId: string) =>
  lines.filter((l) => l.msg === 'graphql request' && l.requestId === requestId);

async function start(): Promise<string> {
  const answer = await stack.gql<any>(
    'mutation($w: ID!) { runWorkflow(workflowId: $w) { execution { id } } }',
    { w: echo },
  );
  expect(answer.errors).toBeUndefined();
  return answer.data?.runWorkflow.execution.id as string;
}

const pollsOf = (executionId: string) =>
  stack.vro.requests.filter(
    (r) => r.method === 'GET' && r.rawPath.endsWith(`/executions/${executionId}/`),
  ).length;

async function subscriptionMetric(outcome: 'ok' | 'error'): Promise<number> {
  const text = await (await stack.fetch('/metrics')).text();
  const sample = `graphql_operation_duration_seconds_count{operation_type="subscription",operation_name="Follow",outcome="${outcome}"}`;
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.slice(sample.length + 1));
}

async function drain(s: SseSubscription): Promise<number> {
  let events = 0;
  for (
    let event = await s.next();
    event !== null && event.event === 'next';
    event = await s.next()
  ) {
    events += 1;
  }
  return events;
}

describe('the log line and metric of a subscription', () => {
  it('are written when it completes, with its whole duration, its events and the upstream calls made for it', async () => {
    const id = await start();
    const before = pollsOf(id);
    const okBefore = await subscriptionMetric('ok');
    const s = await SseSubscription.open(
      server.url,
      follow,
      { w: echo, e: id },
      {
        'x-request-id': 'follow-completes',
      },
    );
    expect((await s.next())?.event).toBe('next');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Open: nothing is recorded yet.
    expect(requestLines('follow-completes')).toEqual([]);
    expect(await subscriptionMetric('ok')).toBe(okBefore);

    stack.vro.advance(60_000);
    const events = 1 + (await drain(s));
    await until(() => requestLines('follow-completes').length === 1);
    const [line] = requestLines('follow-completes');
    expect(line).toMatchObject({
      operationName: 'Follow',
      operationType: 'subscription',
      status: 200,
      events,
      ended: 'completed',
    });
    expect(line?.errorCodes).toBeUndefined();
    expect(line?.durationMs).toBeGreaterThanOrEqual(300);
    expect(line?.upstreamCalls).toBe(pollsOf(id) - before);
    expect(line?.upstreamCalls).toBeGreaterThanOrEqual(2);
    expect(await subscriptionMetric('ok')).toBe(okBefore + 1);
  });

  it('record the error code of a failed poll and count it as an error', async () => {
    const id = await start();
    const errorsBefore = await subscriptionMetric('error');
    stack.vro.faults.inject({
      fault: { kind: 'status', status: 500, body: '{}', contentType: 'application/json' },
      path: new RegExp(`/executions/${id}/?$`),
    });
    const s = await SseSubscription.open(
      server.url,
      follow,
      { w: echo, e: id },
      {
        'x-request-id': 'follow-fails',
      },
    );
    const event = await s.next();
    expect(event?.data.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    await drain(s);
    await until(() => requestLines('follow-fails').length === 1);
    const [line] = requestLines('follow-fails');
    expect(line).toMatchObject({ errorCodes: ['UPSTREAM_ERROR'], ended: 'completed', events: 1 });
    expect(line?.upstreamCalls).toBeGreaterThanOrEqual(1);
    expect(await subscriptionMetric('error')).toBe(errorsBefore + 1);
  });

  it('record that the client went away', async () => {
    const id = await start();
    const s = await SseSubscription.open(
      server.url,
      follow,
      { w: echo, e: id },
      {
        'x-request-id': 'follow-leaves',
      },
    );
    expect((await s.next())?.event).toBe('next');
    s.close();
    await until(() => requestLines('follow-leaves').length === 1);
    expect(requestLines('follow-leaves')[0]).toMatchObject({ ended: 'client-gone', events: 1 });
  });
});

describe('the log line of an operation whose variables do not fit', () => {
  it.each([
    [
      'a value of the wrong type',
      'query ($n: Int) { workflows(first: $n) { totalCount } }',
      { n: 'ten' },
      'BAD_USER_INPUT',
    ],
    [
      'a missing required variable',
      'query ($id: ID!) { workflow(id: $id) { id } }',
      {},
      'BAD_USER_INPUT',
    ],
    [
      'an unknown enum value',
      'mutation ($l: FirewallLayer) { addApplicationFirewallRule(portGroupId: "dvportgroup-63", rule: { action: "allow", layer: $l }) { generationNumber } }',
      { l: 'LAYER9' },
      'GRAPHQL_VALIDATION_FAILED',
    ],
  ])('carries the code the client got for %s', async (_case, query, variables, code) => {
    const answer = await stack.gql<any>(query, variables, { 'x-request-id': `variables-${code}` });
    expect(answer.errors?.[0]?.extensions?.['code']).toBe(code);
    const line = lines.find(
      (l) => l.msg === 'graphql request' && l.requestId === `variables-${code}`,
    );
    expect(line?.errorCodes).toEqual([code]);
  });
});

describe('the log line of a request refused before it runs', () => {
  it('carries the code the client got: a document that does not parse', async () => {
    const answer = await stack.gql<any>('{ workflows(first: ', {}, { 'x-request-id': 'parse' });
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('GRAPHQL_PARSE_FAILED');
    const line = lines.find((l) => l.msg === 'graphql request' && l.requestId === 'parse');
    expect(line?.errorCodes).toEqual(['GRAPHQL_PARSE_FAILED']);
  });

  it('carries the code the client got: a request without a query', async () => {
    const response = await stack.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'no-query' },
      body: JSON.stringify({ variables: {} }),
    });
    const body = (await response.json()) as { errors: Array<{ extensions: { code: string } }> };
    expect(body.errors[0]?.extensions.code).toBe('BAD_USER_INPUT');
    const line = lines.find((l) => l.msg === 'graphql request' && l.requestId === 'no-query');
    expect(line?.errorCodes).toEqual(['BAD_USER_INPUT']);
  });
});

describe('client-supplied text in the request log', () => {
  it('cuts a 450 KB operation name to 200 characters in the log line and the metric label', async () => {
    const name = `Q${'x'.repeat(450_000)}`;
    const answer = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `query ${name} { __typename }`, operationName: name }),
    });
    expect(answer.status).toBe(200);
    const requestId = answer.headers.get('x-request-id') ?? '';
    const [line] = requestLines(requestId);
    expect(line?.operationName?.startsWith('Qxxx')).toBe(true);
    expect(line?.operationName?.length).toBeLessThan(250);
    expect(JSON.stringify(line).length).toBeLessThan(2000);
    const metrics = await (await stack.fetch('/metrics')).text();
    expect(metrics.length).toBeLessThan(450_000);
  });
});

describe('the log line of a page load', () => {
  it("names the client's address for GraphiQL's page too, which yoga answers before any plugin runs", async () => {
    const response = await fetch(`${server.url}/graphql`, {
      headers: { accept: 'text/html', 'x-request-id': 'graphiql-page-load' },
    });
    expect(response.status).toBe(200);
    await response.text();
    const [line] = requestLines('graphiql-page-load');
    expect(line).toMatchObject({ clientAddress: '127.0.0.1', status: 200 });
  });
});
