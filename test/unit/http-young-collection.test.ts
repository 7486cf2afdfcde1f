import { constants, performance, PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import {
  collectAfterBytes,
  collectAfterLargeCall,
  collectsYoungGeneration,
} from '../../src/http/young-collection.ts';

/** Young-generation collections that started between `from` and `to` (performance.now()). */
async function minorCollections(run: () => void): Promise<number> {
  const starts: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { kind } = (entry as PerformanceEntry & { detail: { kind: number } }).detail;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) starts.push(entry.startTime);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const from = performance.now();
  run();
  const to = performance.now();
  // the entries come after the collections, on a later turn
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return starts.filter((start) => start >= from && start <= to).length;
}

describe('collectAfterLargeCall', () => {
  it('collects the young generation once per call that moved a megabyte or more, started as npm start starts it', async () => {
    expect(collectsYoungGeneration).toBe(true);
    const collections = await minorCollections(() => {
      for (let call = 0; call < 5; call++) collectAfterLargeCall(collectAfterBytes);
    });
    expect(collections).toBe(5);
  });

  it('leaves the young generation alone after smaller calls', async () => {
    const collections = await minorCollections(() => {
      for (let call = 0; call < 5; call++) collectAfterLargeCall(collectAfterBytes - 1);
    });
    expect(collections).toBe(0);
  });
});
