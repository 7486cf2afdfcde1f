import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { SseSubscription, type SseEvent } from '../helpers/sse.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';

const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
const alwaysFails = '29a3b2e9-5d65-4441-9588-42dea2bc372f';
const step = 1000;

let stack: Stack;
let server: Awaited<ReturnType<typeof listen>>;
const open: SseSubscription[] = [];

beforeAll(async () => {
  stack = await startStack({ vro: { manualClock: true, stepMs: step } });
  server = await listen(stack.gateway);
});
afterEach(() => {
  for (const subscription of open.splice(0)) subscription.close();
});
afterAll(async () => {
  await server.close();
  await stack.close();
});

const executionSubscription = `subscription($w: ID!, $e: ID!) {
  workflowExecution(workflowId: $w, executionId: $e) {
    id state endDate outputParameters { name value } workflow { name }
  }
}`;

/** The execution subscription over SSE (fetch + reading the stream), one event at a time. */
class Subscription {
  readonly #sse: SseSubscription;

  private constructor(sse: SseSubscription) {
    this.#sse = sse;
  }

  static async open(workflowId: string, executionId: string): Promise<Subscription> {
    const sse = await SseSubscription.open(server.url, executionSubscription, {
      w: workflowId,
      e: executionId,
    });
    open.push(sse);
    expect(sse.status).toBe(200);
    return new Subscription(sse);
  }

  /** The next `next` or `complete` event (keep-alive comments skipped); null at the end of the stream. */
  next(): Promise<SseEvent | null> {
    return this.#sse.next();
  }

  async state(): Promise<string> {
    const event = await this.next();
    expect(event?.event).toBe('next');
    expect(event?.data.errors).toBeUndefined();
    return event?.data.data.workflowExecution.state as string;
  }

  close(): void {
    this.#sse.close();
  }
}

async function start(workflowId: string): Promise<string> {
  const answer = await stack.gql<any>(
    'mutation($w: ID!) { runWorkflow(workflowId: $w) { execution { id } } }',
    { w: workflowId },
  );
  expect(answer.errors).toBeUndefined();
  return answer.data?.runWorkflow.execution.id as string;
}

const pollsOf = (executionId: string): RecordedRequest[] =>
  stack.vro.requests.filter(
    (request) =>
      request.method === 'GET' && request.rawPath.endsWith(`/executions/${executionId}/`),
  );

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the workflowExecution subscription', () => {
  it('emits the execution first, then each change of state only, and completes after COMPLETED', async () => {
    const id = await start(echo);
    const subscription = await Subscription.open(echo, id);
    const first = await subscription.next();
    expect(first?.data.data.workflowExecution).toMatchObject({
      id,
      state: 'INITIALIZING',
      workflow: { name: 'Echo parameters' },
    });
    stack.vro.advance(step);
    expect(await subscription.state()).toBe('RUNNING');
    const polls = pollsOf(id).length;
    stack.vro.advance(step);
    await until(() => pollsOf(id).length > polls);
    stack.vro.advance(step);
    const completed = await subscription.next();
    expect(completed?.data.data.workflowExecution).toMatchObject({ state: 'COMPLETED' });
    expect(completed?.data.data.workflowExecution.endDate).not.toBeNull();
    expect(await subscription.next()).toMatchObject({ event: 'complete' });
    expect(await subscription.next()).toBeNull();
    await until(() => stack.gateway.clients.vro.activeWatches === 0);
  });

  it('ends after FAILED', async () => {
    const id = await start(alwaysFails);
    const subscription = await Subscription.open(alwaysFails, id);
    expect(await subscription.state()).toBe('INITIALIZING');
    stack.vro.advance(10 * step);
    expect(await subscription.state()).toBe('FAILED');
    expect(await subscription.next()).toMatchObject({ event: 'complete' });
  });

  it('emits a run that has already ended once and completes', async () => {
    const id = await start(echo);
    stack.vro.advance(10 * step);
    const subscription = await Subscription.open(echo, id);
    expect(await subscription.state()).toBe('COMPLETED');
    expect(await subscription.next()).toMatchObject({ event: 'complete' });
  });

  it('shares one poller between the subscribers of one execution', async () => {
    const id = await start(echo);
    const a = await Subscription.open(echo, id);
    expect(await a.state()).toBe('INITIALIZING');
    const b = await Subscription.open(echo, id);
    expect(await b.state()).toBe('INITIALIZING');
    expect(stack.gateway.clients.vro.activeWatches).toBe(1);
    stack.vro.advance(step);
    expect(await a.state()).toBe('RUNNING');
    expect(await b.state()).toBe('RUNNING');
    stack.vro.advance(10 * step);
    expect(await a.state()).toBe('COMPLETED');
    expect(await b.state()).toBe('COMPLETED');
    const polls = pollsOf(id).filter((request) => request.headers['x-request-id'] !== undefined);
    const pollers = new Set(
      polls
        .map((request) => request.headers['x-request-id'])
        .filter((rid) => String(rid).startsWith('vro-watch-')),
    );
    expect(pollers.size).toBe(1);
    // the mutation's read-back, then one poller's GETs: never one per subscriber
    expect(polls.length - 1).toBe(
      polls.filter((request) => pollers.has(request.headers['x-request-id'])).length,
    );
  });

  it('keeps polling while one subscriber remains and stops when the last one leaves', async () => {
    const id = await start(echo);
    const a = await Subscription.open(echo, id);
    const b = await Subscription.open(echo, id);
    expect(await a.state()).toBe('INITIALIZING');
    expect(await b.state()).toBe('INITIALIZING');
    a.close();
    stack.vro.advance(step);
    expect(await b.state()).toBe('RUNNING');
    expect(stack.gateway.clients.vro.activeWatches).toBe(1);
    // right after a change the poller is at its shortest delay (250 ms)
    b.close();
    await until(() => stack.gateway.clients.vro.activeWatches === 0);
    const polls = pollsOf(id).length;
    await settle(1200);
    expect(pollsOf(id).length).toBe(polls);
  });

  it('surfaces an upstream error during polling as an error event and ends', async () => {
    const id = await start(echo);
    const subscription = await Subscription.open(echo, id);
    expect(await subscription.state()).toBe('INITIALIZING');
    stack.vro.faults.inject({ fault: { kind: 'malformed' } });
    try {
      stack.vro.advance(step);
      const failed = await subscription.next();
      expect(failed?.event).toBe('next');
      expect(failed?.data.data).toBeNull();
      expect(failed?.data.errors[0]).toMatchObject({
        path: ['workflowExecution'],
        extensions: { code: 'UPSTREAM_BAD_RESPONSE', upstream: { service: 'vro' } },
      });
      expect(await subscription.next()).toMatchObject({ event: 'complete' });
    } finally {
      stack.vro.faults.clear();
    }
    await until(() => stack.gateway.clients.vro.activeWatches === 0);
  });

  it('answers NOT_FOUND for an execution vRO does not know, and ends', async () => {
    const subscription = await Subscription.open(echo, 'ff8080814a1cb55c014a6481a9927a78');
    const event = await subscription.next();
    expect(event?.data.errors[0].extensions).toMatchObject({
      code: 'NOT_FOUND',
      upstream: { status: 404 },
    });
    expect(await subscription.next()).toMatchObject({ event: 'complete' });
  });

  it('refuses unsafe ids with BAD_USER_INPUT without polling', async () => {
    const mark = stack.vro.requests.length;
    const subscription = await Subscription.open('a/b', 'c');
    const event = await subscription.next();
    expect(event?.data.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'workflowId',
    });
    expect(stack.vro.requests.length).toBe(mark);
  });
});
