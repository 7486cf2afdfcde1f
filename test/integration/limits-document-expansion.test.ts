/**
 * No document within the size limits stalls the server: a 1 KB fragment bomb
 * (each fragment spreads the next twice) expands to millions of selections;
 * it is refused by what it expands to (MAX_EXPANDED_SELECTIONS) before any
 * compiler or executor walks it, through every transport and in allow-list
 * mode, while another client's tiny query is answered at once. Each gateway
 * is its own process, so that its event loop is measured from outside.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentHash } from '../../src/plugins/persisted-operations.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStack, upstreamCalls } from '../helpers/stack.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { sleep } from '../helpers/wait.ts';

const token = 'expansion-test-token';
const levels = [22, 23, 24, 25] as const;

/** `levels` fragments on `type`, each spreading the next twice beside `leaf`: 2^levels selections. */
function bomb(levels: number, root: string, type: string, leaf: string): string {
  let document = `query { ${root} }`;
  for (let i = 0; i < levels; i += 1) {
    document += ` fragment G${i} on ${type} { ...G${i + 1} ...G${i + 1} ${leaf} }`;
  }
  return `${document} fragment G${levels} on ${type} { ${leaf} }`;
}

/** On `viewer`, which needs no credential even with GATEWAY_TOKENS set. */
const viewerBomb = (n: number) => bomb(n, 'viewer { ...G0 }', 'Viewer', 'name');
/** On workflows (n=25 blocked the event loop 27 s before the limit). */
const workflowsBomb = (n: number) =>
  bomb(n, 'workflows(first: 1) { nodes { ...G0 } }', 'Workflow', 'name');
/** A subscription's events would each run the expansion. */
const subscriptionBomb = (n: number) =>
  bomb(
    n,
    'workflowExecution(workflowId: "w", executionId: "e") { ...G0 }',
    'WorkflowExecution',
    'state',
  );
/** Selecting only `__typename`: what the allow-list lets through as introspection. */
const typenameBomb = (n: number) => bomb(n, '...G0', 'Query', '__typename');
const schemaBomb = (n: number) => bomb(n, '__schema { ...G0 }', '__Schema', '__typename');

const tiny = '{ viewer { name } }';

interface Payload {
  data?: unknown;
  errors?: Array<{ message: string; extensions?: { code?: unknown } }>;
}

const dir = mkdtempSync(join(tmpdir(), 'expansion-'));
const listedBomb = viewerBomb(22);
const allowListFile = join(dir, 'allow-list.json');
writeFileSync(
  allowListFile,
  JSON.stringify({ [documentHash(tiny)]: tiny, [documentHash(listedBomb)]: listedBomb }),
);

let open: SpawnedGateway;
let allowList: SpawnedGateway;
let openBase: string;
let allowListBase: string;

beforeAll(async () => {
  open = spawnGateway({ PORT: '0', LOG_LEVEL: 'info', GATEWAY_TOKENS: token });
  allowList = spawnGateway({
    PORT: '0',
    LOG_LEVEL: 'info',
    GATEWAY_TOKENS: token,
    PERSISTED_OPERATIONS_FILE: allowListFile,
  });
  const [openPort, allowListPort] = await Promise.all([open.port(), allowList.port()]);
  openBase = `http://127.0.0.1:${openPort}`;
  allowListBase = `http://127.0.0.1:${allowListPort}`;
  // A cold process is slow to answer its first requests, bomb or not: each transport once first.
  for (const base of [openBase, allowListBase]) {
    for (const transport of ['POST', 'GET', 'batch', 'SSE'] as const) {
      await send(base, transport, { query: tiny }, true);
      await send(base, transport, { query: viewerBomb(11) }, true);
    }
  }
}, 60_000);

afterAll(() => {
  open.kill();
  allowList.kill();
  rmSync(dir, { recursive: true, force: true });
});

const jsonHeaders = (withToken: boolean): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json',
  'x-graphql-csrf': '1',
  ...(withToken ? { authorization: `Bearer ${token}` } : {}),
});

/** Every GraphQL payload of one HTTP answer (a batch: one per operation; SSE: each event's). */
async function payloadsOf(response: Response): Promise<Payload[]> {
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return text
      .split('\n')
      .filter((line) => line.startsWith('data:') && line.length > 'data:'.length + 1)
      .map((line) => JSON.parse(line.slice('data:'.length)) as Payload);
  }
  const body = JSON.parse(text) as Payload | Payload[];
  return Array.isArray(body) ? body : [body];
}

type Transport = 'POST' | 'GET' | 'batch' | 'SSE' | 'multipart';

/** Sends `query` (its second batch member: `tiny`) and answers its payloads. */
async function send(
  base: string,
  transport: Transport,
  body: { query?: string; extensions?: unknown },
  withToken: boolean,
): Promise<Payload[]> {
  const signal = AbortSignal.timeout(20_000);
  const headers = jsonHeaders(withToken);
  let response: Response;
  if (transport === 'GET') {
    const url = new URL('/graphql', base);
    if (body.query !== undefined) url.searchParams.set('query', body.query);
    if (body.extensions !== undefined) {
      url.searchParams.set('extensions', JSON.stringify(body.extensions));
    }
    response = await fetch(url, { headers, signal });
  } else if (transport === 'multipart') {
    // the GraphQL multipart request spec (uploads), with a file the operation does not use
    const form = new FormData();
    // the map names a null the operations hold, as the spec requires
    form.set('operations', JSON.stringify({ ...body, variables: { unused: null } }));
    form.set('map', JSON.stringify({ 0: ['variables.unused'] }));
    form.set('0', new Blob(['bytes']), 'unused.txt');
    // fetch sets the multipart content type and its boundary
    const multipartHeaders: Record<string, string> = { ...headers };
    delete multipartHeaders['content-type'];
    response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: multipartHeaders,
      body: form,
      signal,
    });
  } else if (transport === 'batch') {
    response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify([body, { query: tiny }]),
      signal,
    });
  } else {
    response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: transport === 'SSE' ? { ...headers, accept: 'text/event-stream' } : headers,
      body: JSON.stringify(body),
      signal,
    });
  }
  return payloadsOf(response);
}

/**
 * Runs `attack` while another client (no credential) sends `probe` one after
 * the other; answers the slowest probe's latency in ms and how many were sent.
 */
async function whileProbing(
  base: string,
  probe: { query?: string; extensions?: unknown },
  attack: () => Promise<void>,
): Promise<{ slowest: number; probes: number }> {
  const attackState = { running: true };
  let slowest = 0;
  let probes = 0;
  const failures: unknown[] = [];
  const prober = (async () => {
    while (attackState.running && probes < 2000) {
      const started = performance.now();
      const [answer] = await send(base, 'POST', probe, false);
      slowest = Math.max(slowest, performance.now() - started);
      probes += 1;
      if (answer?.errors !== undefined || answer?.data === undefined) failures.push(answer);
      await sleep(10);
    }
  })();
  try {
    await attack();
    await sleep(50);
  } finally {
    attackState.running = false;
    await prober;
  }
  expect(failures).toEqual([]);
  return { slowest, probes };
}

function expectRefusedForExpansion(payload: Payload | undefined): void {
  expect(payload?.data ?? null).toBeNull();
  expect(payload?.errors?.map((e) => e.extensions?.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  expect(payload?.errors?.[0]?.message).toMatch(
    /expands to \d+ field selections .*at most 2000 .*MAX_EXPANDED_SELECTIONS/,
  );
}

describe('a fragment bomb', () => {
  it('is refused by what it expands to through POST, GET, a batch, SSE and a multipart upload, on viewer and workflows, while another client is answered within two seconds', async () => {
    const transports: readonly Transport[] = ['POST', 'GET', 'batch', 'SSE', 'multipart'];
    const answers: Array<{ transport: Transport; payloads: Payload[] }> = [];
    const { slowest, probes } = await whileProbing(openBase, { query: tiny }, async () => {
      await Promise.all([
        ...levels.flatMap((n) =>
          [viewerBomb(n), workflowsBomb(n)].flatMap((query) =>
            transports.map(async (transport) => {
              answers.push({
                transport,
                payloads: await send(openBase, transport, { query }, true),
              });
            }),
          ),
        ),
        ...levels.map(async (n) => {
          const query = subscriptionBomb(n);
          answers.push({
            transport: 'SSE',
            payloads: await send(openBase, 'SSE', { query }, true),
          });
        }),
      ]);
    });
    expect(answers).toHaveLength(levels.length * (2 * transports.length + 1));
    for (const { transport, payloads } of answers) {
      expectRefusedForExpansion(payloads[0]);
      // the batch's other operation is served
      if (transport === 'batch') {
        expect(payloads[1]?.data).toEqual({ viewer: { name: expect.any(String) } });
      }
    }
    expect(probes).toBeGreaterThan(0);
    expect(slowest).toBeLessThan(2000);
  }, 60_000);

  it('is refused in allow-list mode: selecting only __typename, under __schema, and listed by the operator and sent by its hash', async () => {
    const answers: Payload[][] = [];
    const { slowest, probes } = await whileProbing(allowListBase, { query: tiny }, async () => {
      await Promise.all([
        ...levels.flatMap((n) =>
          [typenameBomb(n), schemaBomb(n)].flatMap((query) =>
            (['POST', 'GET'] as const).map(async (transport) => {
              answers.push(await send(allowListBase, transport, { query }, true));
            }),
          ),
        ),
        ...(['POST', 'GET', 'SSE'] as const).map(async (transport) => {
          const byHash = { persistedQuery: { version: 1, sha256Hash: documentHash(listedBomb) } };
          answers.push(await send(allowListBase, transport, { extensions: byHash }, true));
          answers.push(await send(allowListBase, transport, { query: listedBomb }, true));
        }),
      ]);
    });
    expect(answers).toHaveLength(levels.length * 4 + 6);
    for (const payloads of answers) expectRefusedForExpansion(payloads[0]);
    expect(probes).toBeGreaterThan(0);
    expect(slowest).toBeLessThan(2000);
  }, 60_000);

  it('is refused in graphql-sse single-connection mode, on the stream, with the other operation of the stream served', async () => {
    const auth = { authorization: `Bearer ${token}`, 'x-graphql-csrf': '1' };
    const reserved = await fetch(`${openBase}/graphql`, { method: 'PUT', headers: auth });
    expect(reserved.status).toBe(201);
    const streamToken = await reserved.text();
    const tokenHeader = { ...auth, 'x-graphql-event-stream-token': streamToken };
    const stream = await SseSubscription.request(`${openBase}/graphql`, {
      headers: { ...tokenHeader, accept: 'text/event-stream' },
    });
    try {
      const start = (id: string, query: string) =>
        fetch(`${openBase}/graphql`, {
          method: 'POST',
          headers: { ...tokenHeader, 'content-type': 'application/json' },
          body: JSON.stringify({ query, extensions: { operationId: id } }),
          signal: AbortSignal.timeout(20_000),
        });
      const started = performance.now();
      expect((await start('bomb', workflowsBomb(25))).status).toBe(202);
      expect((await start('tiny', tiny)).status).toBe(202);
      const payloads = new Map<string, Payload>();
      while (payloads.size < 2) {
        const event = await stream.next();
        if (event === null) break;
        if (event.event === 'next') payloads.set(event.data.id, event.data.payload);
      }
      expectRefusedForExpansion(payloads.get('bomb'));
      expect(payloads.get('tiny')?.data).toEqual({ viewer: { name: expect.any(String) } });
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      stream.close();
    }
  });

  it('still lets a document just under the limit run, and a listed tiny query by its hash', async () => {
    // 2^10 + viewer = 1025 selections: under 2000
    const [under] = await send(openBase, 'POST', { query: viewerBomb(9) }, true);
    expect(under?.errors).toBeUndefined();
    expect(under?.data).toEqual({ viewer: { name: expect.any(String) } });
    const [over] = await send(openBase, 'POST', { query: viewerBomb(10) }, false);
    expectRefusedForExpansion(over);
    const [listed] = await send(
      allowListBase,
      'GET',
      { extensions: { persistedQuery: { version: 1, sha256Hash: documentHash(tiny) } } },
      true,
    );
    expect(listed?.errors).toBeUndefined();
    expect(listed?.data).toEqual({ viewer: { name: expect.any(String) } });
  });
});

describe('MAX_EXPANDED_SELECTIONS', () => {
  it('sets the bound: a document over it is refused before any upstream call, one at it runs', async () => {
    const stack = await startStack({ env: { MAX_EXPANDED_SELECTIONS: '4' } });
    try {
      const before = upstreamCalls(stack);
      const fragments = 'fragment F on Workflow { id name }';
      const over = await stack.gql(`{ workflows(first: 1) { nodes { ...F ...F } } } ${fragments}`);
      expect(over.data ?? null).toBeNull();
      expect(over.errors?.map((e) => e.extensions?.['code'])).toEqual([
        'GRAPHQL_VALIDATION_FAILED',
      ]);
      expect(over.errors?.[0]?.message).toMatch(/expands to 6 .*at most 4 /);
      expect(upstreamCalls(stack)).toBe(before);
      const at = await stack.gql(`{ workflows(first: 1) { nodes { ...F } } } ${fragments}`);
      expect(at.errors).toBeUndefined();
      expect(upstreamCalls(stack)).toBeGreaterThan(before);
    } finally {
      await stack.close();
    }
  });
});
