import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { loopBusyReader } from '../../src/http/loop-busy.ts';

describe('loopBusyReader', () => {
  it('tells the share of the time since the previous read that the event loop ran code, busy or idle', async () => {
    const busy = loopBusyReader();
    await sleep(100);
    expect(busy()).toBeLessThan(0.5);
    const until = performance.now() + 100;
    while (performance.now() < until) {
      // the loop runs this code and nothing else
    }
    expect(busy()).toBeGreaterThan(0.9);
  });
});
