import { describe, expect, it } from 'vitest';
import { OperationNames } from '../../src/observability/operation-names.ts';

describe('operation names as metric labels', () => {
  it('admits the first names up to the bound and counts every later one as other', () => {
    const names = new OperationNames(3);
    expect(['A', 'B', 'C', 'D'].map((n) => names.label('query', n))).toEqual([
      'A',
      'B',
      'C',
      'other',
    ]);
    // An admitted name stays one; a refused one stays refused.
    expect(names.label('query', 'A')).toBe('A');
    expect(names.label('query', 'D')).toBe('other');
  });

  it('counts a (type, name) pair once, so one name under three types takes three places', () => {
    const names = new OperationNames(2);
    expect(names.label('query', 'A')).toBe('A');
    expect(names.label('mutation', 'A')).toBe('A');
    expect(names.label('subscription', 'A')).toBe('other');
  });

  it('never admits a name longer than the bound, and keeps anonymous and other without a place', () => {
    const names = new OperationNames(2, 8);
    expect(names.label('query', 'x'.repeat(9))).toBe('other');
    expect(names.label('query', 'anonymous')).toBe('anonymous');
    expect(names.label('query', 'other')).toBe('other');
    expect(names.label('query', 'Short')).toBe('Short');
    expect(names.label('query', 'Second')).toBe('Second');
  });
});
