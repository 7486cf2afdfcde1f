import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  followWorkflowRun,
  runWorkflow,
  startClientStack,
  type ClientStack,
} from '../helpers/clients.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { upstreamCalls } from '../helpers/stack.ts';

/** The single-connection mode of GraphQL over SSE on the wire, as graphql-sse's client speaks it. */
let gateway: ClientStack;

beforeAll(async () => {
  gateway = await startClientStack();
});
afterAll(() => gateway.close());

const tokenHeader = 'x-graphql-event-stream-token';

async function reserve(): Promise<string> {
  const response = await fetch(gateway.endpoint, { method: 'PUT' });
  expect(response.status).toBe(201);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  const token = await response.text();
  expect(token).toMatch(/^[0-9a-f-]{36}$/);
  return token;
}

function start(token: string, id: string, query: string, variables: Record<string, unknown> = {}) {
  return fetch(gateway.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [tokenHeader]: token },
    body: JSON.stringify({ query, variables, extensions: { operationId: id } }),
  });
}

/** Opens the token's stream. */
function open(token: string): Promise<SseSubscription> {
  return SseSubscription.request(gateway.endpoint, {
    headers: { accept: 'text/event-stream', [tokenHeader]: token },
  });
}

describe('graphql-sse single-connection mode on /graphql', () => {
  it('answers 404 to a token it never issued, calling no upstream', async () => {
    const before = upstreamCalls(gateway.stack);
    const response = await start(
      '5b0d7c3e-0000-4000-8000-000000000000',
      'q',
      '{ workflows { totalCount } }',
    );
    expect(response.status).toBe(404);
    expect(upstreamCalls(gateway.stack)).toBe(before);
  });

  it('delivers the result of an operation started before the stream opened, then completes it', async () => {
    const token = await reserve();
    expect((await start(token, 'q1', '{ workflows(first: 1) { totalCount } }')).status).toBe(202);
    const stream = await open(token);
    try {
      expect(stream.status).toBe(200);
      const next = await stream.next();
      expect(next).toEqual({
        event: 'next',
        data: { id: 'q1', payload: { data: { workflows: { totalCount: expect.any(Number) } } } },
      });
      expect(await stream.next()).toEqual({ event: 'complete', data: { id: 'q1' } });
    } finally {
      stream.close();
    }
  });

  it('refuses to open one stream twice (409)', async () => {
    const token = await reserve();
    const first = await open(token);
    try {
      const second = await fetch(gateway.endpoint, {
        headers: { accept: 'text/event-stream', [tokenHeader]: token },
      });
      expect(second.status).toBe(409);
    } finally {
      first.close();
    }
  });

  it('sends validation errors on the stream with their contract code', async () => {
    const token = await reserve();
    const stream = await open(token);
    try {
      await start(token, 'bad', '{ noSuchField }');
      const next = await stream.next();
      expect(next?.data.id).toBe('bad');
      expect(next?.data.payload.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    } finally {
      stream.close();
    }
  });

  it('stops a subscription on DELETE, and when the stream closes: vRO is no longer polled', async () => {
    const { stack } = gateway;
    const from = stack.vro.requests.length;
    const run = await fetch(gateway.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: runWorkflow.document, variables: runWorkflow.variables }),
    });
    const { data } = (await run.json()) as { data: unknown };
    const workflowId = runWorkflow.variables['workflowId'];
    const executionId = (data as { runWorkflow: { execution: { id: string } } }).runWorkflow
      .execution.id;
    expect(stack.vro.requests.slice(from).filter((r) => r.method === 'POST')).toHaveLength(1);
    const token = await reserve();
    const stream = await open(token);
    try {
      const follow = () =>
        start(token, 'follow', followWorkflowRun.document, { workflowId, executionId });
      expect((await follow()).status).toBe(202);
      expect((await stream.next())?.data.payload.data.workflowExecution.id).toBe(executionId);
      expect(stack.gateway.clients.vro.activeWatches).toBe(1);
      const stop = await fetch(`${gateway.endpoint}?operationId=follow`, {
        method: 'DELETE',
        headers: { [tokenHeader]: token },
      });
      expect(stop.status).toBe(200);
      await expect.poll(() => stack.gateway.clients.vro.activeWatches).toBe(0);

      expect((await follow()).status).toBe(202);
      await expect.poll(() => stack.gateway.clients.vro.activeWatches).toBe(1);
    } finally {
      stream.close();
    }
    await expect.poll(() => stack.gateway.clients.vro.activeWatches).toBe(0);
  });
});
