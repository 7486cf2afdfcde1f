import { describe, expect, it } from 'vitest';
import { buildConditions, idCondition } from '../../src/upstreams/vro/conditions.ts';

describe('vRO conditions', () => {
  it('joins every set filter field with a comma, in a fixed order', () => {
    expect(
      buildConditions({
        version: '1.0.0',
        categoryName: 'Snapshot',
        nameContains: 'snap',
        name: 'Create a snapshot',
      }),
    ).toBe('name=Create a snapshot,name~snap,categoryName=Snapshot,version=1.0.0');
  });

  it('uses = for equality and ~ for contains, with the case-sensitive field names', () => {
    expect(buildConditions({ nameContains: 'Clone' })).toBe('name~Clone');
    expect(buildConditions({ categoryName: 'vRA Helpers' })).toBe('categoryName=vRA Helpers');
  });

  it('sends nothing without a filter or with only null fields', () => {
    expect(buildConditions(undefined)).toBeUndefined();
    expect(buildConditions({ name: null, version: undefined })).toBeUndefined();
  });

  it('keeps = and ~ inside a value', () => {
    expect(buildConditions({ nameContains: 'a=b~c' })).toBe('name~a=b~c');
  });

  it('finds a workflow by id with one condition', () => {
    expect(idCondition('6e04a460-4a45-4e16-9603-db2922c24462')).toBe(
      'id=6e04a460-4a45-4e16-9603-db2922c24462',
    );
  });
});
