import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { cpuShareReader } from '../../src/http/cpu-share.ts';

describe('cpuShareReader', () => {
  it('tells the share of a core the process used since the previous read, idle or computing', async () => {
    const share = cpuShareReader();
    await sleep(200);
    const idle = share();
    const until = performance.now() + 200;
    while (performance.now() < until) {
      // computing, nothing else
    }
    const computing = share();
    expect(idle).toBeLessThan(0.2);
    expect(computing).toBeGreaterThan(idle + 0.3);
  });
});
