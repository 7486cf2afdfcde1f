import { describe, expect, it } from 'vitest';
import spec from '../../simulators/nsx/t/specs/nsx-policy-api.json' with { type: 'json' };
import { definitionNames, specProblem } from '../../simulators/nsx/t/spec-check.ts';

function refsIn(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) refsIn(item, found);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.add(inner);
      else refsIn(inner, found);
    }
  }
}

describe('the NSX-T Policy API definitions subset', () => {
  it('resolves every reference inside the file', () => {
    const refs = new Set<string>();
    refsIn(spec, refs);
    const names = new Set(definitionNames());
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/definitions\//);
      expect(names.has(ref.replace('#/definitions/', '')), ref).toBe(true);
    }
  });

  it('compiles every definition, and an empty object is a Group but not an IPAddressExpression', () => {
    for (const name of definitionNames()) expect(() => specProblem(name, {})).not.toThrow();
    expect(specProblem('Group', {})).toBeNull();
    expect(specProblem('IPAddressExpression', {})).not.toBeNull();
  });

  it('reads a polymorphic member by its resource_type and refuses subtypes it does not hold', () => {
    const entry = { resource_type: 'L4PortSetServiceEntry', l4_protocol: 'TCP' };
    expect(specProblem('Service', { service_entries: [entry] })).toBeNull();
    expect(
      specProblem('Service', { service_entries: [{ ...entry, ip_addresses: ['10.0.0.1'] }] }),
    ).toContain('ip_addresses');
    expect(
      specProblem('Service', { service_entries: [{ resource_type: 'ICMPTypeServiceEntry' }] }),
    ).not.toBeNull();
    expect(specProblem('Service', { service_entries: [{ l4_protocol: 'TCP' }] })).not.toBeNull();
  });

  it('reads an application profile by its resource_type: LBHttpProfile, LBFastTcpProfile, LBFastUdpProfile', () => {
    const list = (profile: Record<string, unknown>) => ({ result_count: 1, results: [profile] });
    expect(
      specProblem('LBAppProfileListResult', list({ resource_type: 'LBHttpProfile', ntlm: true })),
    ).toBeNull();
    expect(
      specProblem(
        'LBAppProfileListResult',
        list({ resource_type: 'LBFastTcpProfile', ntlm: true }),
      ),
    ).toContain('ntlm');
    expect(specProblem('LBAppProfileListResult', list({ idle_timeout: 1 }))).not.toBeNull();
    expect(
      specProblem('LBFastUdpProfile', { resource_type: 'LBFastUdpProfile', idle_timeout: 0 }),
    ).not.toBeNull();
    expect(
      specProblem('LBService', { size: 'DLB', connectivity_path: '/infra/tier-1s/t1' }),
    ).toBeNull();
    expect(specProblem('LBService', { size: 'HUGE' })).not.toBeNull();
  });

  it('refuses a field the definition lacks, at the top and inside', () => {
    expect(specProblem('Rule', { action: 'ALLOW', colour: 'red' })).toContain('colour');
    expect(specProblem('Rule', { tags: [{ tag: 't', colour: 'red' }] })).toContain('colour');
    expect(specProblem('ApiError', { httpStatus: 'BAD_REQUEST' })).toContain('httpStatus');
    expect(specProblem('ApiError', { httpStatus: 'BAD_REQUEST' }, false)).toBeNull();
  });

  it('names an existing definition for every body and answer of its operations', () => {
    const names = new Set(definitionNames());
    const paths = spec.paths as Record<string, Record<string, unknown>>;
    const operations = Object.values(paths).flatMap((item) => Object.values(item));
    expect(operations.length).toBeGreaterThanOrEqual(20);
    const refs = new Set<string>();
    refsIn(operations, refs);
    for (const ref of refs) expect(names.has(ref.replace('#/definitions/', ''))).toBe(true);
  });
});
