import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.ts';
import { createGateway, type Gateway } from '../../src/server.ts';
import { memoryAuditLog, startStack, type Stack } from '../helpers/stack.ts';
import { sleep } from '../helpers/wait.ts';

interface ReadyBody {
  status: string;
  upstreams: Record<string, { state: string; circuit: string; limit: number }>;
}

/** One replica: a gateway process of its own over the same appliances. */
interface Replica {
  fetch(path: string): Promise<Response>;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function stackWith(env: Record<string, string>): Promise<Stack> {
  const stack = await startStack({ env });
  closers.push(() => stack.close());
  return stack;
}

/** A second gateway over the stack's simulators, as another replica of the same Deployment. */
function replicaOf(stack: Stack): Replica {
  const gateway: Gateway = createGateway(stack.config, {
    logger: createLogger('silent'),
    audit: memoryAuditLog([]),
  });
  closers.push(() => gateway.close());
  return {
    fetch: async (path) => gateway.yoga.fetch(new Request(`http://gateway.test${path}`)),
  };
}

async function ready(
  replica: Replica,
  path = '/ready',
): Promise<{ status: number; body: ReadyBody }> {
  const response = await replica.fetch(path);
  return { status: response.status, body: (await response.json()) as ReadyBody };
}

async function upstreamUp(replica: Replica): Promise<Record<string, number>> {
  const text = await (await replica.fetch('/metrics')).text();
  const found: Record<string, number> = {};
  for (const [, service, value] of text.matchAll(/^upstream_up\{service="(\w+)"\} (\S+)$/gm)) {
    found[service ?? ''] = Number(value);
  }
  return found;
}

describe('/ready while an appliance is down', () => {
  it('keeps every replica ready, shows the appliance down in the body and in upstream_up, and answers the other appliances', async () => {
    const stack = await stackWith({ READY_PROBE_INTERVAL_MS: '100' });
    const replicas: Replica[] = [stack, replicaOf(stack)];
    for (const replica of replicas) {
      const before = await ready(replica);
      expect(before.status).toBe(200);
      expect(before.body.status).toBe('ready');
      expect(await upstreamUp(replica)).toEqual({ vro: 1, vra: 1, nsx: 1 });
    }

    const port = Number(stack.nsx.url.port);
    await stack.nsx.close();
    await sleep(150);
    for (const replica of replicas) {
      // The first ask after the interval starts a new probe round; a refused
      // connection fails within it, so this very answer shows NSX down.
      const down = await ready(replica);
      expect(down.status).toBe(200);
      expect(down.body.status).toBe('ready');
      expect(down.body.upstreams['nsx']).toMatchObject({ state: 'down', circuit: 'closed' });
      expect(down.body.upstreams['nsx']?.limit).toBeGreaterThan(0);
      expect(down.body.upstreams['vro']?.state).toBe('up');
      expect(down.body.upstreams['vra']?.state).toBe('up');
      expect(JSON.stringify(down.body)).not.toContain(String(port));
      expect(await upstreamUp(replica)).toEqual({ vro: 1, vra: 1, nsx: 0 });

      // The strict meaning, for whoever wants it: 503 while any upstream is down.
      const strict = await ready(replica, '/ready?upstreams=all');
      expect(strict.status).toBe(503);
      expect(strict.body.status).toBe('not ready');
      expect(strict.body.upstreams['nsx']?.state).toBe('down');
    }

    const answer = await stack.gql(
      '{ ipSets { id } workflows(first: 1) { totalCount } providers { totalCount } }',
    );
    expect(answer.data?.['workflows']).toEqual({ totalCount: 61 });
    expect((answer.data?.['providers'] as { totalCount: number }).totalCount).toBeGreaterThan(0);
    expect(answer.data?.['ipSets']).toBeNull();
    expect(answer.errors?.map((e) => [e.path?.[0], e.extensions?.['code']])).toEqual([
      ['ipSets', 'UPSTREAM_UNAVAILABLE'],
    ]);

    const { startNsxSimulator } = await import('../../simulators/nsx/v/index.ts');
    const back = await startNsxSimulator({ port });
    closers.push(() => back.close());
    await sleep(150);
    for (const replica of replicas) {
      const again = await ready(replica, '/ready?upstreams=all');
      expect(again.status).toBe(200);
      expect(again.body.upstreams['nsx']?.state).toBe('up');
      expect(await upstreamUp(replica)).toEqual({ vro: 1, vra: 1, nsx: 1 });
    }
  });

  it('answers within half a second from the last round when an appliance hangs', async () => {
    const stack = await stackWith({ READY_PROBE_INTERVAL_MS: '100' });
    expect((await ready(stack)).status).toBe(200);
    // vRO now takes 1.5 s to answer anything, the probe of its API root included.
    stack.vro.faults.inject({ fault: { kind: 'delay', ms: 1500 } });
    await sleep(150);
    const started = Date.now();
    const answer = await ready(stack);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(answer.status).toBe(200);
    expect(answer.body.upstreams['vro']?.state).toBe('up');
  });
});

describe('/ready and /ready?upstreams=all', () => {
  it('are 200 with every upstream up', async () => {
    const stack = await stackWith({});
    for (const path of ['/ready', '/ready?upstreams=all']) {
      const answer = await ready(stack, path);
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe('ready');
      for (const service of ['vro', 'vra', 'nsx']) {
        expect(answer.body.upstreams[service]?.state).toBe('up');
      }
    }
  });

  it('are both 503 while the process drains', async () => {
    const stack = await stackWith({});
    stack.gateway.readiness.draining = true;
    for (const path of ['/ready', '/ready?upstreams=all']) {
      const answer = await ready(stack, path);
      expect(answer.status).toBe(503);
      expect(answer.body.status).toBe('draining');
    }
  });

  it('refuses an upstreams value other than "all" with 400', async () => {
    const stack = await stackWith({});
    const answer = await stack.fetch('/ready?upstreams=some');
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      error: 'upstreams: the only value understood is "all"',
    });
  });

  it('has no upstream_up sample before the first probe: a scrape probes nothing', async () => {
    const stack = await stackWith({});
    expect(await upstreamUp(stack)).toEqual({});
    expect(stack.vro.requests).toEqual([]);
  });
});
