import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { listen, startStack, type Stack } from '../helpers/stack.ts';
import { bearerOf, vraLogin } from '../helpers/vra.ts';

const centos = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c01';
const step = 1000;

let stack: Stack;
let server: Awaited<ReturnType<typeof listen>>;
const open: SseSubscription[] = [];

beforeAll(async () => {
  stack = await startStack({ vra: { manualClock: true, requestStepMs: step } });
  server = await listen(stack.gateway);
});
afterEach(() => {
  for (const subscription of open.splice(0)) subscription.close();
});
afterAll(async () => {
  await server.close();
  await stack.close();
});

const follow = `subscription($id: ID!) {
  catalogRequest(id: $id) { id state phase final dateCompleted resources { name resourceType } }
}`;

async function subscribe(
  id: string,
  headers: Record<string, string> = {},
): Promise<SseSubscription> {
  const sse = await SseSubscription.open(server.url, follow, { id }, headers);
  open.push(sse);
  expect(sse.status).toBe(200);
  return sse;
}

/** The next event's request (failing on an error or the end of the stream). */
async function nextRequest(sse: SseSubscription): Promise<any> {
  const event = await sse.next();
  expect(event?.event).toBe('next');
  expect(event?.data.errors).toBeUndefined();
  return event?.data.data.catalogRequest;
}

async function order(): Promise<string> {
  const answer = await stack.gql<any>(
    'mutation($input: RequestCatalogItemInput!) { requestCatalogItem(input: $input) { request { id } } }',
    { input: { catalogItemId: centos } },
  );
  expect(answer.errors).toBeUndefined();
  return answer.data?.requestCatalogItem.request.id as string;
}

const pollsOf = (id: string): RecordedRequest[] =>
  stack.vra.requests.filter(
    (r) => r.method === 'GET' && r.path === `/catalog-service/api/consumer/requests/${id}`,
  );

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the catalogRequest subscription', () => {
  it('emits the request, then each change of state and phase, and completes once vRA marks it final', async () => {
    const id = await order();
    const sse = await subscribe(id);
    expect(await nextRequest(sse)).toMatchObject({
      id,
      state: 'SUBMITTED',
      phase: 'PENDING_PRE_APPROVAL',
      final: false,
      dateCompleted: null,
      resources: [],
    });
    stack.vra.advance(step);
    expect(await nextRequest(sse)).toMatchObject({ state: 'IN_PROGRESS', phase: 'IN_PROGRESS' });
    const polls = pollsOf(id).length;
    await until(() => pollsOf(id).length > polls); // unchanged: nothing is emitted
    stack.vra.advance(step);
    const done = await nextRequest(sse);
    expect(done).toMatchObject({ state: 'SUCCESSFUL', phase: 'SUCCESSFUL', final: true });
    expect(done.dateCompleted).not.toBeNull();
    expect(done.resources.map((r: { resourceType: string }) => r.resourceType)).toEqual([
      'composition.resource.type.deployment',
      'Infrastructure.Virtual',
    ]);
    expect(await sse.next()).toMatchObject({ event: 'complete' });
    expect(await sse.next()).toBeNull();
    await until(() => stack.gateway.clients.vra.activeWatches === 0);
    for (const poll of pollsOf(id)) {
      expect(poll.headers.accept).toBe('application/json');
      expect(bearerOf(poll)).toBeDefined();
    }
  });

  it('ends after a failed request', async () => {
    stack.vra.failNextRequests(1);
    const id = await order();
    const sse = await subscribe(id);
    expect((await nextRequest(sse)).state).toBe('SUBMITTED');
    stack.vra.advance(2 * step);
    expect(await nextRequest(sse)).toMatchObject({ state: 'FAILED', final: true, resources: [] });
    expect(await sse.next()).toMatchObject({ event: 'complete' });
  });

  it('emits a request that is already final once and completes', async () => {
    const id = await order();
    stack.vra.advance(2 * step);
    const sse = await subscribe(id);
    expect((await nextRequest(sse)).state).toBe('SUCCESSFUL');
    expect(await sse.next()).toMatchObject({ event: 'complete' });
  });

  it('shares one poller between the subscribers of one request', async () => {
    const id = await order();
    const a = await subscribe(id);
    expect((await nextRequest(a)).state).toBe('SUBMITTED');
    const b = await subscribe(id);
    expect((await nextRequest(b)).state).toBe('SUBMITTED');
    expect(stack.gateway.clients.vra.activeWatches).toBe(1);
    stack.vra.advance(step);
    expect((await nextRequest(a)).state).toBe('IN_PROGRESS');
    expect((await nextRequest(b)).state).toBe('IN_PROGRESS');
    stack.vra.advance(step);
    expect((await nextRequest(a)).state).toBe('SUCCESSFUL');
    expect((await nextRequest(b)).state).toBe('SUCCESSFUL');
    const pollers = new Set(pollsOf(id).map((r) => r.headers['x-request-id']));
    expect(pollers.size).toBe(1);
    expect(String([...pollers][0])).toMatch(/^vra-watch-/);
  });

  it('polls separately for another credential, with that credential', async () => {
    const id = await order();
    const token = await vraLogin(stack.vra);
    const service = await subscribe(id);
    const user = await subscribe(id, { 'x-vra-authorization': `Bearer ${token}` });
    expect((await nextRequest(service)).state).toBe('SUBMITTED');
    expect((await nextRequest(user)).state).toBe('SUBMITTED');
    expect(stack.gateway.clients.vra.activeWatches).toBe(2);
    const bearers = new Set(pollsOf(id).map((r) => bearerOf(r)));
    expect(bearers.has(token)).toBe(true);
    expect(bearers.size).toBe(2);
    service.close();
    user.close();
    await until(() => stack.gateway.clients.vra.activeWatches === 0);
  });

  it('stops polling when the last subscriber leaves', async () => {
    const id = await order();
    const sse = await subscribe(id);
    expect((await nextRequest(sse)).state).toBe('SUBMITTED');
    sse.close();
    await until(() => stack.gateway.clients.vra.activeWatches === 0);
    const polls = pollsOf(id).length;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(pollsOf(id).length).toBe(polls);
  });

  it('answers NOT_FOUND for a request vRA does not know, and ends', async () => {
    const sse = await subscribe('00000000-0000-4000-8000-000000000000');
    const event = await sse.next();
    expect(event?.data.errors[0].extensions).toMatchObject({
      code: 'NOT_FOUND',
      upstream: { service: 'vra', status: 404, code: '20111' },
    });
    expect(await sse.next()).toMatchObject({ event: 'complete' });
  });

  it('refuses an unsafe id with BAD_USER_INPUT without polling', async () => {
    const mark = stack.vra.requests.length;
    const sse = await subscribe('../resources');
    const event = await sse.next();
    expect(event?.data.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'id',
    });
    expect(stack.vra.requests.length).toBe(mark);
  });
});
