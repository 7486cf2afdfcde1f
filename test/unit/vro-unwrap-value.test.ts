import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toIsoDate, unwrapValue } from '../../src/upstreams/vro/unwrap-value.ts';

const capturedText = readFileSync(
  new URL('../fixtures/vro/execution.json', import.meta.url),
  'utf8',
);
const captured = JSON.parse(capturedText) as {
  'input-parameters': Array<{ name: string; value: unknown }>;
  'output-parameters': Array<{ name: string; value: unknown }>;
};

describe('vRO value unwrapping', () => {
  it('reads the captured 326.0 as the number 326', () => {
    expect(capturedText).toContain('326.0');
    const requestNumber = captured['output-parameters'].find((p) => p.name === 'requestNumber');
    expect(unwrapValue(requestNumber?.value)).toBe(326);
  });

  it('reads the captured Array/string input as an array of strings', () => {
    const runlist = captured['input-parameters'].find((p) => p.name === 'runlist');
    expect(unwrapValue(runlist?.value)).toEqual(['role[loc_uswest]', 'role[base]', 'role[api]']);
  });

  it('unwraps the simple wrappers', () => {
    expect(unwrapValue({ string: { value: 'x' } })).toBe('x');
    expect(unwrapValue({ boolean: { value: false } })).toBe(false);
    expect(unwrapValue({ 'secure-string': { value: 's' } })).toBe('s');
    expect(unwrapValue({ number: { value: '12.0' } })).toBe(12);
    expect(unwrapValue({ string: {} })).toBeNull();
  });

  it('unwraps properties into an object, recursively', () => {
    expect(
      unwrapValue({
        properties: {
          property: [
            { key: 'a', value: { number: { value: 1.0 } } },
            {
              key: 'b',
              value: {
                properties: { property: [{ key: 'c', value: { string: { value: 'd' } } }] },
              },
            },
            { key: 'e', value: { array: { elements: [{ boolean: { value: true } }, null] } } },
          ],
        },
      }),
    ).toEqual({ a: 1, b: { c: 'd' }, e: [true, null] });
  });

  it('keeps only type and id of an SDK object', () => {
    expect(
      unwrapValue({
        'sdk-object': { type: 'VC:VirtualMachine', id: 'vcenter/vm-1', href: 'https://x/' },
      }),
    ).toEqual({ type: 'VC:VirtualMachine', id: 'vcenter/vm-1' });
  });

  it('turns dates into ISO instants in UTC from ISO strings or epoch milliseconds', () => {
    expect(unwrapValue({ date: { value: '2014-12-19T22:43:46.833+01:00' } })).toBe(
      '2014-12-19T21:43:46.833Z',
    );
    expect(unwrapValue({ date: { value: 1419025426833 } })).toBe('2014-12-19T21:43:46.833Z');
    expect(toIsoDate('1419025426833')).toBe('2014-12-19T21:43:46.833Z');
    expect(toIsoDate(undefined)).toBeNull();
    expect(toIsoDate('not a date')).toBeNull();
  });

  it('answers null for a missing or empty value and keeps an unknown wrapper as sent', () => {
    expect(unwrapValue(undefined)).toBeNull();
    expect(unwrapValue(null)).toBeNull();
    expect(unwrapValue({})).toBeNull();
    expect(
      unwrapValue({ 'mime-attachment': { name: 'a.txt', 'mime-type': 'text/plain' } }),
    ).toEqual({
      name: 'a.txt',
      'mime-type': 'text/plain',
    });
  });
});
