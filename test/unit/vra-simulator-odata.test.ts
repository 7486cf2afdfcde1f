import { describe, expect, it } from 'vitest';
import { compileFilter, FilterSyntaxError } from '../../src/simulators/vra/odata.ts';

const providers = [
  { id: '1', name: 'iaas-service', providerTypeId: 'a' },
  { id: '2', name: "Ops Team's XaaS", providerTypeId: 'b' },
  { id: '3', name: 'Blueprint Service', providerTypeId: 'a' },
];
const fields = ['id', 'name', 'providerTypeId'];
const select = (filter: string) => providers.filter(compileFilter(filter, fields)).map((p) => p.id);

describe('the vRA simulator $filter', () => {
  it('matches name eq with a doubled quote inside the text', () => {
    expect(select("name eq 'iaas-service'")).toEqual(['1']);
    expect(select("name eq 'Ops Team''s XaaS'")).toEqual(['2']);
  });

  it('combines or and and, and binds and tighter', () => {
    expect(select("id eq '1' or id eq '3'")).toEqual(['1', '3']);
    expect(select("providerTypeId eq 'a' and name eq 'Blueprint Service' or id eq '2'")).toEqual([
      '2',
      '3',
    ]);
    expect(select("(id eq '1' or id eq '2') and providerTypeId eq 'a'")).toEqual(['1']);
  });

  it('reaches nested fields with a path', () => {
    const items = [{ providerBinding: { providerRef: { id: 'p' } } }, { providerBinding: null }];
    const predicate = compileFilter("providerBinding/providerRef/id eq 'p'", [
      'providerBinding/providerRef/id',
    ]);
    expect(items.filter(predicate)).toHaveLength(1);
  });

  it.each([
    "name ne 'x'",
    "secret eq 'x'",
    "name eq 'x",
    'name eq x',
    "name eq 'x' or",
    "(name eq 'x'",
  ])('refuses %j', (filter) => {
    expect(() => compileFilter(filter, fields)).toThrow(FilterSyntaxError);
  });
});
