import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  endlessNsxtList,
  endlessNsxvEdges,
  hugeNsxtList,
  startHostileUpstreams,
  vra7Paging,
  vra8Paging,
  wideVra8Schema,
  type HostileUpstreams,
} from '../helpers/hostile-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

/**
 * Appliances that answer within their own formats, but without end: cursors
 * that never stop, huge pages, impossible totals, lists of 300,000, a schema
 * of 60,000 properties. Each gateway runs as its own process (`npm start`'s
 * flags), so that its life and its memory are what is measured.
 */

interface Payload {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; path?: unknown[]; extensions?: Record<string, unknown> }>;
}

/** The vRO field beside the one under attack: its data must come through. */
const vroSibling = 'workflows(first: 1) { nodes { id } }';

interface Running {
  gateway: SpawnedGateway;
  base: string;
  /** Largest resident set seen while sampling (bytes). */
  peakRss(): number;
  stop(): Promise<void>;
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return Number(kb ?? 0) * 1024;
}

async function start(hostile: HostileUpstreams, env: Record<string, string>): Promise<Running> {
  const gateway = spawnGateway({
    PORT: '0',
    LOG_LEVEL: 'info',
    UPSTREAM_RETRIES: '0',
    CIRCUIT_FAILURE_THRESHOLD: '10000',
    ...hostile.env,
    ...env,
  });
  const base = `http://127.0.0.1:${await gateway.port()}`;
  // Warm: the first answers of a new process (lazy modules, compiled operations) are not the loop's.
  await query(base, '{ __typename }');
  await query(base, `{ ${vroSibling} }`);
  const pid = gateway.child.pid ?? 0;
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid));
    } catch {
      // the process is gone: the test's liveness check says so
    }
  }, 20);
  return {
    gateway,
    base,
    peakRss: () => peak,
    stop: async () => {
      clearInterval(sampler);
      gateway.kill();
      await gateway.exited;
    },
  };
}

async function query(base: string, document: string): Promise<{ status: number; body: Payload }> {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: document }),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Payload };
}

/**
 * Runs `document` while a tiny query is sent every 100 ms: answers the
 * document's answer, how long it took, and the slowest tiny answer.
 */
async function underWatch(running: Running, document: string) {
  const watching = { on: true };
  let slowestTinyMs = 0;
  let tinyAnswers = 0;
  const watcher = (async () => {
    while (watching.on) {
      const sent = performance.now();
      const tiny = await query(running.base, '{ __typename }');
      expect(tiny.body.data).toEqual({ __typename: 'Query' });
      slowestTinyMs = Math.max(slowestTinyMs, performance.now() - sent);
      tinyAnswers += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const started = performance.now();
  const answer = await query(running.base, document);
  const tookMs = performance.now() - started;
  watching.on = false;
  await watcher;
  return { ...answer, tookMs, slowestTinyMs, tinyAnswers };
}

/** The process still answers its health check. */
async function expectAlive(running: Running): Promise<void> {
  const health = await fetch(`${running.base}/health`);
  expect(health.status).toBe(200);
  expect(running.gateway.child.exitCode).toBeNull();
}

function errorAt(body: Payload, field: string) {
  return body.errors?.find((error) => error.path?.[0] === field);
}

/** Calls the fake received on `path` (for NSX-v edges: the list's pages, not the version probe). */
function countOf(hostile: HostileUpstreams, service: 'vra' | 'nsx', path: RegExp): number {
  return hostile[service].requests.filter(
    (request) =>
      path.test(request.path) &&
      (!path.source.includes('edges') || request.query.get('pageSize') === '1024'),
  ).length;
}

const mib = 1024 * 1024;
/** A tiny query's longest wait while the attack runs: about a second (a loaded 2-core machine's share included). */
const tinyWithinMs = 1500;

describe('paged reads with small caps (UPSTREAM_MAX_PAGES=10, UPSTREAM_MAX_LIST_BYTES=4 MiB), vRA 8 and NSX-T', () => {
  let hostile: HostileUpstreams;
  let running: Running;
  beforeAll(async () => {
    hostile = await startHostileUpstreams(1);
    running = await start(hostile, {
      VRA_API_GENERATION: '8',
      NSX_API: 't',
      UPSTREAM_TIMEOUT_MS: '2000',
      UPSTREAM_MAX_PAGES: '10',
      UPSTREAM_MAX_LIST_BYTES: String(4 * mib),
    });
  }, 30_000);
  afterAll(async () => {
    await running.stop();
    await hostile.close();
  });

  it('an NSX-T cursor that never ends stops at the page cap: ipSets fails with UPSTREAM_BAD_RESPONSE, the vRO field answers', async () => {
    hostile.override('nsx', endlessNsxtList(2000));
    try {
      const before = countOf(hostile, 'nsx', /\/groups$/);
      const answer = await underWatch(running, `{ ipSets { id } ${vroSibling} }`);
      expect(answer.status).toBe(200);
      expect(errorAt(answer.body, 'ipSets')?.extensions).toMatchObject({
        code: 'UPSTREAM_BAD_RESPONSE',
        upstream: { service: 'nsx' },
      });
      expect(errorAt(answer.body, 'ipSets')?.message).toMatch(/10 pages/);
      expect(answer.body.data?.['workflows']).toMatchObject({
        nodes: [{ id: expect.any(String) }],
      });
      expect(countOf(hostile, 'nsx', /\/groups$/) - before).toBe(10);
      await expectAlive(running);
    } finally {
      hostile.override('nsx', undefined);
    }
  });

  it('NSX-T pages of 1.5 MB stop at the byte cap: few calls, bounded memory, the loop free for a tiny query', async () => {
    hostile.override('nsx', endlessNsxtList(1.5 * mib));
    try {
      const before = countOf(hostile, 'nsx', /\/groups$/);
      const answer = await underWatch(running, `{ ipSets { id } ${vroSibling} }`);
      expect(answer.status).toBe(200);
      expect(errorAt(answer.body, 'ipSets')?.extensions).toMatchObject({
        code: 'UPSTREAM_BAD_RESPONSE',
      });
      expect(answer.body.data?.['workflows']).toMatchObject({
        nodes: [{ id: expect.any(String) }],
      });
      // 4 MiB / 1.5 MB: the third page is the last asked for
      expect(countOf(hostile, 'nsx', /\/groups$/) - before).toBeLessThanOrEqual(3);
      expect(answer.slowestTinyMs).toBeLessThan(tinyWithinMs);
      expect(running.peakRss()).toBeLessThan(600 * mib);
      await expectAlive(running);
    } finally {
      hostile.override('nsx', undefined);
    }
  });

  it('a cursor that never ends, each page slow, stops at the request deadline with UPSTREAM_TIMEOUT: no call after it', async () => {
    hostile.override('nsx', endlessNsxtList(2000));
    hostile.nsx.faults.inject({ path: /\/groups$/, fault: { kind: 'delay', ms: 400 } });
    try {
      const before = countOf(hostile, 'nsx', /\/groups$/);
      const answer = await underWatch(running, `{ ipSets { id } ${vroSibling} }`);
      const calls = hostile.nsx.requests.filter((request) => /\/groups$/.test(request.path));
      expect(errorAt(answer.body, 'ipSets')?.extensions).toMatchObject({
        code: 'UPSTREAM_TIMEOUT',
      });
      expect(answer.body.data?.['workflows']).toMatchObject({
        nodes: [{ id: expect.any(String) }],
      });
      // budget: UPSTREAM_TIMEOUT_MS (2 s) + 0.5 s from arrival; a page begun late gets 0.25 s at most
      expect(answer.tookMs).toBeLessThan(2500 + 250 + 500);
      expect(calls.length - before).toBeLessThan(10);
      // the fake hears of no page once the answer is out
      const heard = calls.length;
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(countOf(hostile, 'nsx', /\/groups$/)).toBe(heard);
    } finally {
      hostile.nsx.faults.clear();
      hostile.override('nsx', undefined);
    }
  });

  it('vRA 8 announcing totalElements 1e12 fails entitledCatalogItems at once with UPSTREAM_BAD_RESPONSE, the vRO field answers', async () => {
    hostile.override('vra', vra8Paging({ totalElements: 1e12 }));
    try {
      const before = countOf(hostile, 'vra', /^\/iaas\/api\/projects$/);
      const answer = await underWatch(
        running,
        `{ entitledCatalogItems(first: 5) { nodes { id businessGroups { id } } } ${vroSibling} }`,
      );
      expect(answer.status).toBe(200);
      expect(errorAt(answer.body, 'entitledCatalogItems')?.extensions).toMatchObject({
        code: 'UPSTREAM_BAD_RESPONSE',
        upstream: { service: 'vra' },
      });
      expect(answer.body.data?.['workflows']).toMatchObject({
        nodes: [{ id: expect.any(String) }],
      });
      expect(countOf(hostile, 'vra', /^\/iaas\/api\/projects$/) - before).toBe(1);
      await expectAlive(running);
    } finally {
      hostile.override('vra', undefined);
    }
  });

  it('vRA 8 whose pages run on past what they announce (200 per page, a total of 10,000) stops at the page cap', async () => {
    // 10,000 / 200 = 50 pages announced: past the cap of 10 at the first page
    hostile.override('vra', vra8Paging({ totalElements: 10_000 }));
    try {
      const before = countOf(hostile, 'vra', /^\/iaas\/api\/projects$/);
      const answer = await query(
        running.base,
        `{ entitledCatalogItems(first: 5) { nodes { id } } ${vroSibling} }`,
      );
      expect(errorAt(answer.body, 'entitledCatalogItems')?.extensions).toMatchObject({
        code: 'UPSTREAM_BAD_RESPONSE',
      });
      expect(countOf(hostile, 'vra', /^\/iaas\/api\/projects$/) - before).toBeLessThanOrEqual(10);
    } finally {
      hostile.override('vra', undefined);
    }
  });

  it('a vRA 8 item schema of 60,000 properties is read without blocking the loop: the template answers, a tiny query meanwhile within about a second', async () => {
    hostile.override(
      'vra',
      vra8Paging({ totalElements: 1, pageSize: 1, schema: wideVra8Schema(60_000) }),
    );
    try {
      const answer = await underWatch(
        running,
        `{ entitledCatalogItems(first: 1) { nodes { id requestTemplate } } ${vroSibling} }`,
      );
      expect(answer.status).toBe(200);
      const nodes = (
        answer.body.data?.['entitledCatalogItems'] as {
          nodes: Array<{ requestTemplate: { data: Record<string, unknown> } }>;
        } | null
      )?.nodes;
      expect(answer.body.errors).toBeUndefined();
      expect(Object.keys(nodes?.[0]?.requestTemplate.data ?? {})).toHaveLength(60_000);
      expect(answer.slowestTinyMs).toBeLessThan(tinyWithinMs);
      await expectAlive(running);
    } finally {
      hostile.override('vra', undefined);
    }
  });
});

describe('paged reads with small caps, vRA 7 and NSX-v', () => {
  let hostile: HostileUpstreams;
  let running: Running;
  beforeAll(async () => {
    hostile = await startHostileUpstreams(2);
    running = await start(hostile, {
      UPSTREAM_TIMEOUT_MS: '5000',
      UPSTREAM_MAX_PAGES: '10',
      UPSTREAM_MAX_LIST_BYTES: String(4 * mib),
    });
  }, 30_000);
  afterAll(async () => {
    await running.stop();
    await hostile.close();
  });

  it('vRA 7 announcing 1e12 providers fails providerByName after one call with UPSTREAM_BAD_RESPONSE, the vRO field answers', async () => {
    hostile.override('vra', vra7Paging({ totalElements: 1e12, pageSize: 1 }));
    try {
      const before = countOf(hostile, 'vra', /\/providers$/);
      const answer = await underWatch(
        running,
        `{ providerByName(name: "x") { id } ${vroSibling} }`,
      );
      expect(answer.status).toBe(200);
      expect(errorAt(answer.body, 'providerByName')?.extensions).toMatchObject({
        code: 'UPSTREAM_BAD_RESPONSE',
        upstream: { service: 'vra' },
      });
      expect(answer.body.data?.['workflows']).toMatchObject({
        nodes: [{ id: expect.any(String) }],
      });
      expect(countOf(hostile, 'vra', /\/providers$/) - before).toBe(1);
      await expectAlive(running);
    } finally {
      hostile.override('vra', undefined);
    }
  });

  it('NSX-v announcing 1e12 edges, one per page, fails edges at once with UPSTREAM_BAD_RESPONSE, the vRO field answers', async () => {
    hostile.override('nsx', endlessNsxvEdges(1e12));
    try {
      const before = countOf(hostile, 'nsx', /\/edges$/);
      const answer = await underWatch(running, `{ edges { id } ${vroSibling} }`);
      expect(answer.status).toBe(200);
      expect(errorAt(answer.body, 'edges')?.extensions).toMatchObject({
        code: 'UPSTREAM_BAD_RESPONSE',
        upstream: { service: 'nsx' },
      });
      expect(answer.body.data?.['workflows']).toMatchObject({
        nodes: [{ id: expect.any(String) }],
      });
      expect(countOf(hostile, 'nsx', /\/edges$/) - before).toBe(1);
    } finally {
      hostile.override('nsx', undefined);
    }
  });

  it('NSX-v announcing 12 edges but sending one per page stops at the page cap', async () => {
    hostile.override('nsx', endlessNsxvEdges(12));
    try {
      const before = countOf(hostile, 'nsx', /\/edges$/);
      const answer = await query(running.base, `{ edges { id } ${vroSibling} }`);
      expect(errorAt(answer.body, 'edges')?.extensions).toMatchObject({
        code: 'UPSTREAM_BAD_RESPONSE',
      });
      expect(countOf(hostile, 'nsx', /\/edges$/) - before).toBe(10);
    } finally {
      hostile.override('nsx', undefined);
    }
  });
});

describe('paged reads with the shipped caps (100 pages, 64 MiB), NSX-T and vRA 7', () => {
  let hostile: HostileUpstreams;
  let running: Running;
  beforeAll(async () => {
    hostile = await startHostileUpstreams(3);
    running = await start(hostile, { NSX_API: 't', UPSTREAM_TIMEOUT_MS: '20000' });
  }, 30_000);
  afterAll(async () => {
    await running.stop();
    await hostile.close();
  });

  it('pages of 4.6 MB with a new cursor each stop at 64 MiB: at most 15 calls, the process alive and under 1.5 GB', async () => {
    hostile.override('nsx', endlessNsxtList(4.6 * mib));
    try {
      const before = countOf(hostile, 'nsx', /\/groups$/);
      const answer = await underWatch(running, `{ ipSets { id } ${vroSibling} }`);
      expect(answer.status).toBe(200);
      expect(errorAt(answer.body, 'ipSets')?.extensions).toMatchObject({
        code: 'UPSTREAM_BAD_RESPONSE',
      });
      expect(errorAt(answer.body, 'ipSets')?.message).toMatch(/67108864 bytes/);
      expect(answer.body.data?.['workflows']).toMatchObject({
        nodes: [{ id: expect.any(String) }],
      });
      expect(countOf(hostile, 'nsx', /\/groups$/) - before).toBeLessThanOrEqual(15);
      expect(running.peakRss()).toBeLessThan(1536 * mib);
      await expectAlive(running);
    } finally {
      hostile.override('nsx', undefined);
    }
  }, 30_000);

  it('a list of 300,000 groups in one page answers them all with HTTP 200: no RangeError, the vRO field answers', async () => {
    hostile.override('nsx', hugeNsxtList(300_000));
    try {
      const answer = await underWatch(running, `{ ipSets { id } ${vroSibling} }`);
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toBeUndefined();
      expect(answer.body.data?.['ipSets']).toHaveLength(300_000);
      expect(answer.body.data?.['workflows']).toMatchObject({
        nodes: [{ id: expect.any(String) }],
      });
      await expectAlive(running);
    } finally {
      hostile.override('nsx', undefined);
    }
  }, 30_000);
  it('vRA 7 answering 300,000 providers in one page reads them all: no RangeError, no HTTP 500', async () => {
    hostile.override('vra', vra7Paging({ totalElements: 300_000, pageSize: 300_000 }));
    try {
      const answer = await underWatch(
        running,
        `{ providerByName(name: "iaas-service") { id } ${vroSibling} }`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toBeUndefined();
      expect(answer.body.data?.['providerByName']).toMatchObject({ id: expect.any(String) });
      await expectAlive(running);
    } finally {
      hostile.override('vra', undefined);
    }
  }, 30_000);
});
