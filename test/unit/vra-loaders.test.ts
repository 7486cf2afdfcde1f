import { describe, expect, it } from 'vitest';
import { createVraLoaders, perItemConcurrency } from '../../src/loaders/vra.ts';
import type { VraClient } from '../../src/upstreams/vra/v7/client.ts';

/** A client whose template reads take a while and count how many run at once. */
function slowClient() {
  let running = 0;
  let most = 0;
  const calls: string[] = [];
  const client = {
    async getRequestTemplate(_call: unknown, id: string) {
      calls.push(id);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      return { catalogItemId: id };
    },
  } as unknown as VraClient;
  return { client, calls, most: () => most };
}

describe('the per-request vRA loaders', () => {
  it("read each item's template once, at most a few at a time", async () => {
    const fake = slowClient();
    const loaders = createVraLoaders(fake.client, {
      signal: new AbortController().signal,
      requestId: 'r',
    });
    const ids = Array.from({ length: 40 }, (_, i) => `item-${i % 20}`);
    const templates = await Promise.all(ids.map((id) => loaders.requestTemplate.load(id)));
    expect(templates.map((t) => t['catalogItemId'])).toEqual(ids);
    expect(fake.calls).toHaveLength(20);
    expect(fake.most()).toBe(perItemConcurrency);
  });
});
