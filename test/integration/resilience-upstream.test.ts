import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startStack, type Stack, type StackOptions } from '../helpers/stack.ts';
import { sleep } from '../helpers/wait.ts';

const stacks: Stack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});

async function stackWith(env: Record<string, string>, options: StackOptions = {}): Promise<Stack> {
  const stack = await startStack({ ...options, env });
  stacks.push(stack);
  return stack;
}

const workflowsPath = /^\/vco\/api\/workflows$/;
const query = '{ workflows(first: 1) { totalCount } }';
const workflowReads = (stack: Stack): RecordedRequest[] =>
  stack.vro.requests.filter((r) => r.method === 'GET' && workflowsPath.test(r.path));

interface ReadyBody {
  status: string;
  upstreams: Record<string, { state: string; circuit: string; running: number; queued: number }>;
}

async function ready(stack: Stack, path = '/ready'): Promise<{ status: number; body: ReadyBody }> {
  const response = await stack.fetch(path);
  return { status: response.status, body: (await response.json()) as ReadyBody };
}

describe('retries', () => {
  it('answers a read with data after two 503s, sending it three times', async () => {
    const stack = await stackWith({});
    stack.vro.faults.inject({
      fault: { kind: 'status', status: 503 },
      path: workflowsPath,
      times: 2,
    });
    const answer = await stack.gql(query);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ workflows: { totalCount: 61 } });
    expect(workflowReads(stack)).toHaveLength(3);
  });

  it('answers a read with data after a connection reset', async () => {
    const stack = await stackWith({});
    stack.vro.faults.inject({ fault: { kind: 'reset' }, path: workflowsPath, times: 1 });
    const answer = await stack.gql(query);
    expect(answer.errors).toBeUndefined();
    expect(workflowReads(stack)).toHaveLength(2);
  });

  it('gives up after UPSTREAM_RETRIES retries with UPSTREAM_UNAVAILABLE', async () => {
    const stack = await stackWith({ UPSTREAM_RETRIES: '1' });
    stack.vro.faults.inject({
      fault: { kind: 'status', status: 502 },
      path: workflowsPath,
      times: 2,
    });
    const answer = await stack.gql(query);
    expect(answer.data?.['workflows']).toBeNull();
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      upstream: { service: 'vro', status: 502 },
    });
    expect(workflowReads(stack)).toHaveLength(2);
  });

  it('sends a runWorkflow POST exactly once when vRO answers 503, and starts no run', async () => {
    const stack = await stackWith({});
    stack.vro.faults.inject({ fault: { kind: 'status', status: 503 }, method: 'POST' });
    const answer = await stack.gql(
      'mutation { runWorkflow(workflowId: "aefcfad8-efc8-4849-b3aa-7efe4458a885") { execution { id } } }',
    );
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    expect(stack.vro.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(stack.vro.executions).toHaveLength(0);
  });

  it('sends a createIpSet POST exactly once when the connection is reset', async () => {
    const stack = await stackWith({});
    stack.nsx.faults.inject({ fault: { kind: 'reset' }, method: 'POST' });
    const answer = await stack.gql(
      'mutation { createIpSet(input: { name: "web", addresses: ["10.0.0.1"] }) { id } }',
    );
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    expect(stack.nsx.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('waits as long as a 429 asks with Retry-After before the retry', async () => {
    const stack = await stackWith({});
    stack.vro.faults.inject({
      fault: { kind: 'status', status: 429, headers: { 'retry-after': '1' } },
      path: workflowsPath,
      times: 1,
    });
    const answer = await stack.gql(query);
    expect(answer.errors).toBeUndefined();
    const [first, second] = workflowReads(stack);
    expect(workflowReads(stack)).toHaveLength(2);
    // The backoff alone would wait at most 100 ms.
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('does not retry when Retry-After asks for more than the time left', async () => {
    const stack = await stackWith({ UPSTREAM_TIMEOUT_MS: '2000' });
    stack.vro.faults.inject({
      fault: { kind: 'status', status: 429, headers: { 'retry-after': '30' } },
      path: workflowsPath,
    });
    const answer = await stack.gql(query);
    expect(answer.errors?.[0]?.extensions).toMatchObject({ upstream: { status: 429 } });
    expect(workflowReads(stack)).toHaveLength(1);
  });
});

describe('circuit breaker', () => {
  const env = {
    UPSTREAM_RETRIES: '0',
    CIRCUIT_FAILURE_THRESHOLD: '3',
    CIRCUIT_RESET_MS: '1000',
    READY_PROBE_INTERVAL_MS: '100',
  };

  it('sheds calls after CIRCUIT_FAILURE_THRESHOLD failures, shows it open on /ready, and a probe closes it', async () => {
    const stack = await stackWith(env);
    stack.vro.faults.inject({ fault: { kind: 'status', status: 503 }, path: workflowsPath });
    for (let failure = 1; failure <= 3; failure += 1) {
      const answer = await stack.gql(query);
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    }
    expect(workflowReads(stack)).toHaveLength(3);

    const shed = await stack.gql(query);
    expect(shed.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    expect(shed.errors?.[0]?.message).toMatch(/shed/);
    // the circuit's time left, in whole seconds: CIRCUIT_RESET_MS is 1000
    expect(shed.errors?.[0]?.extensions?.['retryAfter']).toBe(1);
    expect(workflowReads(stack)).toHaveLength(3);
    const open = await ready(stack);
    expect(open.body.upstreams['vro']?.circuit).toBe('open');
    expect(open.body.upstreams['nsx']?.circuit).toBe('closed');

    // Other upstreams are not affected.
    const network = await stack.gql('{ ipSets { id } }');
    expect(network.errors).toBeUndefined();

    stack.vro.faults.clear();
    await sleep(1050);
    const probe = await stack.gql(query);
    expect(probe.errors).toBeUndefined();
    expect(workflowReads(stack)).toHaveLength(4);
    expect((await ready(stack)).body.upstreams['vro']?.circuit).toBe('closed');
  });

  it('opens again at once when the probe fails', async () => {
    const stack = await stackWith(env);
    stack.vro.faults.inject({ fault: { kind: 'status', status: 503 }, path: workflowsPath });
    for (let failure = 1; failure <= 3; failure += 1) await stack.gql(query);
    await sleep(1050);
    expect((await ready(stack)).body.upstreams['vro']?.circuit).toBe('half-open');
    await stack.gql(query);
    expect(workflowReads(stack)).toHaveLength(4);
    const shed = await stack.gql(query);
    expect(shed.errors?.[0]?.message).toMatch(/shed/);
    expect(workflowReads(stack)).toHaveLength(4);
  });

  it('does not count 4xx answers (a wrong user password, a missing object) as failures', async () => {
    const stack = await stackWith(env);
    for (let i = 0; i < 5; i += 1) {
      const answer = await stack.gql(
        query,
        {},
        { 'x-vro-authorization': `Basic ${Buffer.from('nobody:wrong').toString('base64')}` },
      );
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    }
    expect((await ready(stack)).body.upstreams['vro']?.circuit).toBe('closed');
    expect((await stack.gql(query)).errors).toBeUndefined();
  });
});

describe('concurrency cap', () => {
  it('runs UPSTREAM_MAX_CONCURRENCY calls, queues UPSTREAM_MAX_QUEUE, and refuses the rest at once without opening the circuit', async () => {
    const stack = await stackWith({
      UPSTREAM_MAX_CONCURRENCY: '2',
      UPSTREAM_MAX_QUEUE: '1',
      CIRCUIT_FAILURE_THRESHOLD: '2',
    });
    stack.vro.faults.inject({ fault: { kind: 'delay', ms: 300 }, path: workflowsPath });
    // six operations of one call each (one operation alone would get half the slots)
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        stack.gql(`{ workflows(first: ${i + 1}) { totalCount } }`),
      ),
    );
    expect(answers.filter((answer) => answer.errors === undefined)).toHaveLength(3);
    const errors = answers.flatMap((answer) => answer.errors ?? []);
    expect(errors).toHaveLength(3);
    for (const error of errors) {
      expect(error.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
      expect(error.message).toMatch(/waiting/);
    }
    expect(workflowReads(stack)).toHaveLength(3);
    expect((await ready(stack)).body.upstreams['vro']).toMatchObject({
      circuit: 'closed',
      running: 0,
      queued: 0,
    });
    expect((await stack.gql(query)).errors).toBeUndefined();
  });
});

describe('/ready', () => {
  it('answers 200 with every upstream up, still 200 naming one that went away as down (503 with ?upstreams=all), and up once it is back', async () => {
    const stack = await stackWith({ READY_PROBE_INTERVAL_MS: '100' });
    const before = await ready(stack);
    expect(before.status).toBe(200);
    expect(before.body.status).toBe('ready');
    for (const service of ['vro', 'vra', 'nsx']) {
      expect(before.body.upstreams[service]).toMatchObject({ state: 'up', circuit: 'closed' });
    }

    const port = Number(stack.nsx.url.port);
    await stack.nsx.close();
    await sleep(150);
    const down = await ready(stack);
    expect(down.status).toBe(200);
    expect(down.body.status).toBe('ready');
    expect(down.body.upstreams['nsx']?.state).toBe('down');
    expect(down.body.upstreams['vro']?.state).toBe('up');
    expect(JSON.stringify(down.body)).not.toContain(String(port));
    const strict = await ready(stack, '/ready?upstreams=all');
    expect(strict.status).toBe(503);
    expect(strict.body.status).toBe('not ready');

    const { startNsxSimulator } = await import('../../simulators/nsx/v/index.ts');
    const back = await startNsxSimulator({ port });
    try {
      await sleep(150);
      const again = await ready(stack, '/ready?upstreams=all');
      expect(again.status).toBe(200);
      expect(again.body.upstreams['nsx']?.state).toBe('up');
      const answer = await stack.gql('{ ipSets { id } }');
      expect(answer.errors).toBeUndefined();
      expect(back.requests.some((r) => r.method === 'GET' && r.rawPath.includes('ipset'))).toBe(
        true,
      );
    } finally {
      await back.close();
    }
  });
});
