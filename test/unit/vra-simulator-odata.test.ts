import { describe, expect, it } from 'vitest';
import { compileFilter, FilterSyntaxError } from '../../simulators/vra/v7/odata.ts';

const providers = [
  { id: '1', name: 'iaas-service', providerTypeId: 'a' },
  { id: '2', name: "Ops Team's XaaS", providerTypeId: 'b' },
  { id: '3', name: 'Blueprint Service', providerTypeId: 'a' },
];
const fields = ['id', 'name', 'providerTypeId'];
const select = (filter: string) => providers.filter(compileFilter(filter, fields)).map((p) => p.id);

describe('the vRA simulator $filter', () => {
  it('matches name eq with a doubled quote inside the text, as the gateway sends it', () => {
    expect(select("name eq 'iaas-service'")).toEqual(['1']);
    expect(select("name eq ''")).toEqual([]);
    expect(select("name eq 'Ops Team''s XaaS'")).toEqual(['2']);
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
    "name eq 'x' or id eq '1'",
    "id eq '1' and name eq 'iaas-service'",
    "(name eq 'iaas-service')",
    "substringof('iaas', name)",
    "name eq 'it's'",
  ])('refuses %j', (filter) => {
    expect(() => compileFilter(filter, fields)).toThrow(FilterSyntaxError);
  });
});
