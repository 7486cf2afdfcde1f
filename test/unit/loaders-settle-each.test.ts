import { describe, expect, it } from 'vitest';
import { settleEach } from '../../src/loaders/settle-each.ts';

describe('settleEach (every loader batch)', () => {
  it('answers each key in key order, with an Error in place of each failed one', async () => {
    const failure = new Error('404');
    const results = await settleEach(['a', 'b', 'c'], (key) =>
      key === 'b' ? Promise.reject(failure) : Promise.resolve(key.toUpperCase()),
    );
    expect(results).toEqual(['A', failure, 'C']);
  });

  it('turns a thrown non-Error, or a synchronous throw, into an Error for that key only', async () => {
    const results = await settleEach([1, 2, 3], (key) => {
      if (key === 1) throw new TypeError('sync');
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what a careless client might do
      if (key === 2) return Promise.reject('text');
      return Promise.resolve(key);
    });
    expect(results[0]).toBeInstanceOf(TypeError);
    expect(results[1]).toEqual(new Error('text'));
    expect(results[2]).toBe(3);
  });
});
