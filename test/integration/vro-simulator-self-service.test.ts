import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVroSimulator, type VroSimulator } from '../../simulators/vro/index.ts';

const captured = JSON.parse(
  readFileSync(new URL('../fixtures/vro/presentation.json', import.meta.url), 'utf8'),
) as { steps: unknown[] };
const requestComponent = '6e04a460-4a45-4e16-9603-db2922c24462';
const noOp = '3eabedcb-baa8-4dd4-88bd-64072bcfbe01';
const step = 1000;

let sim: VroSimulator;
let auth: string;
beforeAll(async () => {
  sim = await startVroSimulator({ manualClock: true, stepMs: step, history: false });
  auth = `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`;
});
afterAll(async () => {
  await sim.close();
});

function call(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', auth);
  if (!headers.has('accept')) headers.set('accept', 'application/json');
  return fetch(`${sim.url.href}${path}`, { ...init, headers });
}

async function run(workflowId: string): Promise<string> {
  const response = await call(`/workflows/${workflowId}/executions/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ parameters: [] }),
  });
  expect(response.status).toBe(202);
  return /executions\/([0-9a-f]+)\/$/.exec(response.headers.get('location') ?? '')?.[1] ?? '';
}

interface History {
  relations: {
    total: number;
    link: Array<{ rel: string; attributes?: Array<{ name: string; value?: string }> }>;
  };
}
const runIds = (body: History): string[] =>
  body.relations.link
    .filter((link) => link.attributes !== undefined)
    .map((link) => link.attributes?.find((a) => a.name === 'id')?.value ?? '');

describe('vRO simulator: presentation, history, logs, cancel', () => {
  it('serves the presentation of Request Component in the captured shape, GET and JSON only', async () => {
    const response = await call(`/workflows/${requestComponent}/presentation/`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { steps: unknown[] };
    expect(body.steps).toEqual(captured.steps);
    expect(
      (await call(`/workflows/${requestComponent}/presentation/`, { method: 'POST' })).status,
    ).toBe(405);
    expect(
      (
        await call(`/workflows/${requestComponent}/presentation/`, {
          headers: { accept: 'text/html' },
        })
      ).status,
    ).toBe(406);
    expect((await call('/workflows/nope/presentation/')).status).toBe(404);
  });

  it('lists a workflow runs oldest first, honours maxResult and startIndex, and refuses bad ones', async () => {
    const ids = [await run(noOp), await run(noOp), await run(noOp)];
    const all = (await (await call(`/workflows/${noOp}/executions/`)).json()) as History;
    expect(runIds(all)).toEqual(ids);
    expect(all.relations.total).toBe(3);
    expect(all.relations.link.slice(0, 2).map((link) => link.rel)).toEqual(['up', 'add']);
    const window = (await (
      await call(`/workflows/${noOp}/executions/?maxResult=2&startIndex=1`)
    ).json()) as History;
    expect(runIds(window)).toEqual(ids.slice(1));
    expect(window.relations.total).toBe(3);
    expect((await call(`/workflows/${noOp}/executions/?maxResult=0`)).status).toBe(400);
    expect((await call(`/workflows/${noOp}/executions/?startIndex=-1`)).status).toBe(400);
    sim.switches.executionPaging = 'ignore';
    try {
      const ignored = (await (
        await call(`/workflows/${noOp}/executions/?maxResult=1&startIndex=0`)
      ).json()) as History;
      expect(runIds(ignored)).toEqual(ids);
    } finally {
      sim.switches.executionPaging = 'honor';
    }
  });

  it('writes the log as a run advances, newest first, with epoch-ms time-stamps', async () => {
    const id = await run(noOp);
    const logs = async () =>
      (
        (await (await call(`/workflows/${noOp}/executions/${id}/logs/`)).json()) as {
          logs: Array<{ entry: Record<string, unknown> }>;
        }
      ).logs.map(({ entry }) => entry);
    expect((await logs()).map((entry) => entry['short-description'])).toEqual([
      "Workflow 'No-op' has started",
    ]);
    expect(typeof (await logs())[0]?.['time-stamp']).toBe('number');
    sim.advance(10 * step);
    const done = await logs();
    expect(done[0]?.['short-description']).toBe("Workflow 'No-op' has completed");
    expect(done.at(-1)?.['short-description']).toBe("Workflow 'No-op' has started");
    expect((await call(`/workflows/${noOp}/executions/${'0'.repeat(32)}/logs/`)).status).toBe(404);
  });

  it('cancels a running run with 204, and refuses to cancel one that has ended with 400', async () => {
    const id = await run(noOp);
    sim.advance(step);
    const cancel = await call(`/workflows/${noOp}/executions/${id}/state`, { method: 'DELETE' });
    expect(cancel.status).toBe(204);
    const state = (await (await call(`/workflows/${noOp}/executions/${id}/state`)).json()) as {
      value: string;
    };
    expect(state.value).toBe('canceled');
    const again = await call(`/workflows/${noOp}/executions/${id}/state`, { method: 'DELETE' });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { message: string }).message).toMatch(
      /is canceled and cannot be canceled/,
    );
    const finished = await run(noOp);
    sim.advance(10 * step);
    expect(
      (await call(`/workflows/${noOp}/executions/${finished}/state`, { method: 'DELETE' })).status,
    ).toBe(400);
  });

  it('seeds past runs into the history unless told not to', async () => {
    const seeded = await startVroSimulator({ manualClock: true });
    try {
      const response = await fetch(`${seeded.url.href}/workflows/${requestComponent}/executions/`, {
        headers: {
          accept: 'application/json',
          authorization: `Basic ${Buffer.from(`${seeded.username}:${seeded.password}`).toString('base64')}`,
        },
      });
      const body = (await response.json()) as History;
      expect(body.relations.total).toBe(3);
      expect(seeded.executions).toHaveLength(0);
    } finally {
      await seeded.close();
    }
  });
});
