import { describe, expect, it } from 'vitest';
import {
  offsetCursor,
  pageSize,
  startAfter,
} from '../../src/resolvers/orchestration/page-arguments.ts';

describe('workflow page arguments', () => {
  it('continues after the offset its cursor names', () => {
    expect(startAfter(offsetCursor(0))).toBe(1);
    expect(startAfter(offsetCursor(49))).toBe(50);
    expect(startAfter(null)).toBe(0);
  });

  it.each([
    '',
    'abc',
    'b2Zmc2V0Oi0x',
    Buffer.from('offset:01').toString('base64'),
    `${offsetCursor(3)}=`,
  ])('refuses the malformed cursor %j', (cursor) => {
    expect(() => startAfter(cursor)).toThrow(/cursor/);
  });

  it('accepts page sizes from 1 to 1000 and defaults to 50', () => {
    expect(pageSize(1)).toBe(1);
    expect(pageSize(1000)).toBe(1000);
    expect(pageSize(null)).toBe(50);
    expect(() => pageSize(0)).toThrow(/between 1 and 1000/);
    expect(() => pageSize(1001)).toThrow(/between 1 and 1000/);
    expect(() => pageSize(-5)).toThrow(/between 1 and 1000/);
  });
});
