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

describe('vRO values nested beyond reason', () => {
  const arrays = (levels: number): unknown =>
    JSON.parse(
      '{"array":{"elements":['.repeat(levels) + '{"string":{"value":"x"}}' + ']}}'.repeat(levels),
    );

  it('unwraps 64 levels of arrays', () => {
    let value = unwrapValue(arrays(64));
    for (let level = 0; level < 64; level += 1) {
      expect(Array.isArray(value)).toBe(true);
      value = (value as unknown[])[0];
    }
    expect(value).toBe('x');
  });

  it('refuses 3,000 levels of array wrappers as UPSTREAM_BAD_RESPONSE, without overflowing the stack', () => {
    expect(() => unwrapValue(arrays(3000))).toThrow(
      expect.objectContaining({
        message: expect.stringContaining('a JSON value nested deeper than 64 levels'),
        extensions: expect.objectContaining({ code: 'UPSTREAM_BAD_RESPONSE' }),
      }),
    );
  });

  it('keeps a property named __proto__ as an own key, and the last of a repeated key', () => {
    const value = unwrapValue({
      properties: {
        property: [
          { key: '__proto__', value: { string: { value: 'p' } } },
          { key: 'k', value: { string: { value: 'first' } } },
          { key: 'k', value: { array: { elements: [{ number: { value: 1 } }] } } },
        ],
      },
    }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'k']);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toBe('p');
    expect(value['k']).toEqual([1]);
  });
});
