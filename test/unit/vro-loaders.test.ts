import { describe, expect, it } from 'vitest';
import { createVroLoaders } from '../../src/loaders/vro.ts';
import type { VroClient } from '../../src/upstreams/vro/client.ts';
import type { WorkflowRecord } from '../../src/upstreams/vro/wire.ts';

const listed = (id: string, categoryName: string): WorkflowRecord => ({
  id,
  name: id,
  description: null,
  version: '1.0.0',
  href: `https://vro/vco/api/workflows/${id}/`,
  customIcon: false,
  summary: { categoryName, categoryHref: null, type: 'Workflow', canExecute: true, canEdit: false },
});

/** A client that answers every lookup by id with a record of category "looked up", and counts them. */
function lookupClient() {
  const lookups: string[] = [];
  const client = {
    findWorkflow(_call: unknown, id: string) {
      lookups.push(id);
      return Promise.resolve(listed(id, 'looked up'));
    },
  } as unknown as VroClient;
  return { client, lookups };
}

const call = { signal: new AbortController().signal, requestId: 'r' };

describe('the per-request vRO loaders', () => {
  it('answer the summaries of listed workflows without a lookup, the first list of an id winning', async () => {
    const fake = lookupClient();
    const loaders = createVroLoaders(fake.client, call);
    loaders.primeSummaries([listed('w1', 'first'), listed('w2', 'first')]);
    loaders.primeSummaries([listed('w1', 'second')]);
    const found = await loaders.workflowSummaryById.loadMany(['w1', 'w2', 'w3']);
    expect(found.map((record) => (record as WorkflowRecord).summary?.categoryName)).toEqual([
      'first',
      'first',
      'looked up',
    ]);
    expect(fake.lookups).toEqual(['w3']);
  });

  it('prime a summary loader already in use, keeping what it already holds', async () => {
    const fake = lookupClient();
    const loaders = createVroLoaders(fake.client, call);
    await loaders.workflowSummaryById.load('w1');
    loaders.primeSummaries([listed('w1', 'listed'), listed('w2', 'listed')]);
    const found = await loaders.workflowSummaryById.loadMany(['w1', 'w2']);
    expect(found.map((record) => (record as WorkflowRecord).summary?.categoryName)).toEqual([
      'looked up',
      'listed',
    ]);
    expect(fake.lookups).toEqual(['w1']);
  });
});
