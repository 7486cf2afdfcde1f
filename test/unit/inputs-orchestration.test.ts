import { describe, expect, it } from 'vitest';
import {
  checkPackageFile,
  checkVroId,
  checkWorkflowFilter,
} from '../../src/inputs/orchestration.ts';
import { isVroId } from '../../src/upstreams/vro/ids.ts';
import { badInput } from '../helpers/thrown.ts';

describe('vRO ids', () => {
  it.each([
    'aefcfad8-efc8-4849-b3aa-7efe4458a885',
    '8a7480a5826e1ed301826e2ea7ef0004',
    'BD80808080808080808080808080808080808080800122263813800000000',
    'com.vmware.library.vc.vm.power:start',
  ])('accepts %s', (id) => {
    expect(checkVroId(id, 'workflowId')).toBe(id);
    expect(isVroId(id)).toBe(true);
  });

  it.each(['', '../packages', 'a,b', 'a b', 'a/b', 'id=1', '-lead', 'x'.repeat(201)])(
    'refuses %j naming the argument',
    (id) => {
      const error = badInput(() => checkVroId(id, 'executionId'));
      expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', argument: 'executionId' });
      expect(error.message).toMatch(/^executionId is not a valid vRO id/);
      expect(isVroId(id)).toBe(false);
    },
  );
});

describe('the workflows filter', () => {
  it('answers the set fields and nothing for no filter', () => {
    expect(checkWorkflowFilter(null)).toBeUndefined();
    expect(checkWorkflowFilter(undefined)).toBeUndefined();
    expect(checkWorkflowFilter({ nameContains: 'a=b~c', version: null })).toEqual({
      name: undefined,
      nameContains: 'a=b~c',
      categoryName: undefined,
      version: undefined,
    });
  });

  it.each([
    ['a comma, which vRO would read as a second condition', { name: 'a,b' }, /comma/],
    ['an empty value', { categoryName: '' }, /must not be empty/],
    ['an unpaired surrogate', { version: '\uD800' }, /unpaired surrogate/],
    ['a value longer than vRO accepts', { nameContains: 'x'.repeat(256) }, /at most 255/],
  ])('refuses %s, naming the field', (_what, filter, message) => {
    const error = badInput(() => checkWorkflowFilter(filter));
    const [field = ''] = Object.keys(filter);
    expect(error.extensions['argument']).toBe(`filter.${field}`);
    expect(error.message).toMatch(message);
  });

  it('takes a value of exactly 255 characters', () => {
    expect(checkWorkflowFilter({ name: 'é'.repeat(255) })?.name).toHaveLength(255);
  });
});

describe('a package file', () => {
  it('refuses an empty file and takes any other', () => {
    expect(badInput(() => checkPackageFile({ size: 0 })).extensions['argument']).toBe('file');
    const file = { size: 1 };
    expect(checkPackageFile(file)).toBe(file);
  });
});
