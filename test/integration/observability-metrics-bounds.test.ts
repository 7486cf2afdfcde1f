import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, upstreamCalls, type Stack } from '../helpers/stack.ts';

const token = 'metrics-bounds-token-0123456789';
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ env: { GATEWAY_TOKENS: token } });
});
afterAll(async () => {
  await stack.close();
});

let counter = 0;
/** A name nobody has used yet, as a scanner making them up would send. */
const randomName = (prefix: string): string =>
  `${prefix}${(++counter).toString(36)}${Math.random().toString(36).slice(2, 10)}`;

/** One operation, naming itself in the document and in `operationName`. */
async function send(
  document: string,
  operationName: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const response = await stack.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query: document, operationName }),
  });
  await response.arrayBuffer();
  return response.status;
}

const bearer = { authorization: `Bearer ${token}` };

/** The attacks: each sends one request with a name of its own making. */
const attacks = {
  /** No credential: refused with 401 before anything runs. */
  unauthenticated: () => {
    const name = randomName('anon_');
    return send(`query ${name} { workflows(first: 1) { totalCount } }`, name);
  },
  /** No credential, open fields only: it runs, as nobody. */
  openFields: () => {
    const name = randomName('open_');
    return send(`query ${name} { viewer { name } }`, name);
  },
  /** A token that is not one: refused with 401. */
  refused: () => {
    const name = randomName('bad_');
    return send(`query ${name} { __typename }`, name, { authorization: 'Bearer not-a-token' });
  },
  /** A name the document does not have: refused before it runs. */
  misnamed: () => send('query Real { __typename }', randomName('ghost_'), bearer),
  /** A valid token: the operation runs (a query, or a mutation that fails). */
  authenticated: (i: number) => {
    const name = randomName('auth_');
    return i % 2 === 0
      ? send(`query ${name} { __typename }`, name, bearer)
      : send(`mutation ${name} { signOut }`, name, bearer);
  },
};

/** Runs `count` requests, `parallel` at a time, cycling through `kinds`. */
async function flood(count: number, kinds: Array<(i: number) => Promise<number>>): Promise<void> {
  const parallel = 50;
  for (let start = 0; start < count; start += parallel) {
    await Promise.all(
      Array.from({ length: Math.min(parallel, count - start) }, (_, j) => {
        const i = start + j;
        return kinds[i % kinds.length]!(i);
      }),
    );
  }
}

async function scrape(): Promise<string> {
  return (await stack.fetch('/metrics')).text();
}

const operationLines = (text: string): string[] =>
  text.split('\n').filter((line) => line.startsWith('graphql_operation_duration_seconds'));

const namesIn = (text: string): Set<string> =>
  new Set(
    operationLines(text).flatMap((line) => {
      const name = /operation_name="([^"]*)"/.exec(line)?.[1];
      return name === undefined ? [] : [name];
    }),
  );

describe('operation names in /metrics', () => {
  it('stay bounded under 3,000 requests with made-up names, refused, unauthenticated and authenticated alike', async () => {
    // A front-end's own operation, used before the flood.
    expect(await send('query ListWorkflows { __typename }', 'ListWorkflows', bearer)).toBe(200);
    const before = upstreamCalls(stack);
    const baseline = (await scrape()).length;

    await flood(3000, [
      attacks.unauthenticated,
      attacks.openFields,
      attacks.refused,
      attacks.misnamed,
      attacks.authenticated,
      attacks.authenticated,
    ]);
    expect(upstreamCalls(stack)).toBe(before);

    const text = await scrape();
    const names = namesIn(text);
    expect(names.has('ListWorkflows')).toBe(true);
    expect(names.has('other')).toBe(true);
    // Only names of operations that ran for a credential become labels.
    const strangers = [...names].filter((n) => /^(anon|open|bad|ghost)_/.test(n));
    expect(strangers).toEqual([]);
    // At most 200 (type, name) pairs, plus `other` and `anonymous`.
    expect(names.size).toBeLessThanOrEqual(202);
    expect(names.size).toBeGreaterThan(100);
    // It was 5.4 MB after such a flood; 200 series of 15 lines stay under half a megabyte.
    expect(text.length).toBeLessThan(512 * 1024);
    expect(text.length - baseline).toBeLessThan(480 * 1024);

    // Another flood adds no series at all: the label set is full and stays so.
    const series = new Set(operationLines(text).map((line) => line.replace(/ [^ ]+$/, '')));
    await flood(300, [attacks.authenticated, attacks.openFields, attacks.misnamed]);
    const after = new Set(
      operationLines(await scrape()).map((line) => line.replace(/ [^ ]+$/, '')),
    );
    expect([...after].filter((s) => !series.has(s))).toEqual([]);
  }, 60_000);

  it('keep /health fast while /metrics is scraped after the flood', async () => {
    const scrapes = Array.from({ length: 5 }, () => scrape());
    const started = performance.now();
    const health = await stack.fetch('/health');
    const took = performance.now() - started;
    await Promise.all(scrapes);
    expect(health.status).toBe(200);
    expect(took).toBeLessThan(250);
  });
});
