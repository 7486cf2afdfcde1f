import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../src/http/upstream-http.ts';
import { GenerationProbe } from '../../src/upstreams/generation-probe.ts';

const call = {} as CallContext;

describe('GenerationProbe', () => {
  it('answers the configured generation without asking', async () => {
    const probe = new GenerationProbe<'7' | '8'>('8', () => Promise.reject(new Error('asked')));
    expect(probe.known).toBe('8');
    expect(await probe.get(call)).toBe('8');
  });

  it('asks once for concurrent calls and remembers the answer', async () => {
    let asked = 0;
    const probe = new GenerationProbe<'v' | 't'>(undefined, async () => {
      asked += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 't';
    });
    expect(probe.known).toBeUndefined();
    expect(await Promise.all([probe.get(call), probe.get(call)])).toEqual(['t', 't']);
    expect(await probe.get(call)).toBe('t');
    expect([asked, probe.known]).toEqual([1, 't']);
  });

  it('asks again after a failed question', async () => {
    const answers: Array<() => Promise<'7' | '8'>> = [
      () => Promise.reject(new Error('down')),
      () => Promise.resolve('7'),
    ];
    const probe = new GenerationProbe<'7' | '8'>(undefined, () => answers.shift()!());
    await expect(probe.get(call)).rejects.toThrow('down');
    expect(probe.known).toBeUndefined();
    expect(await probe.get(call)).toBe('7');
  });
});
