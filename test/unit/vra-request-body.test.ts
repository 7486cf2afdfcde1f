import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { editTemplate, mergeData } from '../../src/upstreams/vra/request-body.ts';

const template = JSON.parse(
  readFileSync(new URL('../fixtures/vra/request-template.json', import.meta.url), 'utf8'),
) as Record<string, any>;

describe('merging data into a request template', () => {
  it('merges objects key by key and replaces any other value', () => {
    const merged = mergeData(template['data'], {
      _leaseDays: 7,
      'machine2.vsphere': { data: { cpu: 2, security_tags: ['web'], disks: [] } },
    }) as any;
    expect(merged._leaseDays).toBe(7);
    expect(merged._number_of_instances).toBe(1);
    expect(merged['machine2.vsphere'].typeFilter).toBe('Prativa_CentOs*machine2.vsphere');
    expect(merged['machine2.vsphere'].data).toMatchObject({
      cpu: 2,
      memory: 1024,
      security_tags: ['web'],
      disks: [],
    });
    expect(template['data']['machine2.vsphere'].data.cpu).toBe(1);
  });

  it('replaces an object with null or a scalar, and a scalar with an object', () => {
    expect(mergeData({ a: { b: 1 } }, { a: null })).toEqual({ a: null });
    expect(mergeData({ a: 1 }, { a: { b: 2 } })).toEqual({ a: { b: 2 } });
    expect(mergeData({ a: [1, 2] }, { a: [3] })).toEqual({ a: [3] });
  });

  it("sets description, reasons and the business group when given, else keeps the template's", () => {
    const kept = editTemplate(template, {});
    expect(kept).toEqual(template);
    const edited = editTemplate(template, {
      description: 'web',
      reasons: 'tests',
      businessGroupId: 'bg-2',
      data: { _leaseDays: 3 },
    });
    expect(edited).toMatchObject({ description: 'web', reasons: 'tests', businessGroupId: 'bg-2' });
    expect((edited['data'] as any)._leaseDays).toBe(3);
    expect(editTemplate({ type: 'x' }, { data: { a: 1 } })['data']).toEqual({ a: 1 });
  });

  it('keeps a "__proto__" key of the patch as data', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const merged = mergeData({}, patch) as Record<string, unknown>;
    expect(Object.keys(merged)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
