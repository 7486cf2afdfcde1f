import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BadUserInputError } from '../../src/errors.ts';
import { encodeParameters, parseVroType } from '../../src/inputs/workflow-inputs.ts';

const capturedRun = JSON.parse(
  readFileSync(new URL('../fixtures/vro/run-workflow-request.json', import.meta.url), 'utf8'),
) as { parameters: Array<{ name: string; value: unknown }> };

function encodeOne(type: string, value: unknown) {
  const [parameter] = encodeParameters([{ name: 'p', type, value }]);
  return parameter;
}

function rejection(type: string, value: unknown): BadUserInputError {
  try {
    encodeParameters([{ name: 'p', type, value }]);
  } catch (error) {
    if (error instanceof BadUserInputError) return error;
    throw error;
  }
  throw new Error(`${type} accepted ${JSON.stringify(value)}`);
}

describe('vRO parameter encoding', () => {
  it('wraps a string as the captured run request does', () => {
    const captured = capturedRun.parameters.find((parameter) => parameter.name === 'coreCount');
    expect(encodeOne('string', '2')).toEqual({
      name: 'p',
      type: 'string',
      scope: 'local',
      value: captured?.value,
    });
  });

  it('wraps numbers, booleans and secure strings in their own wrappers', () => {
    expect(encodeOne('number', 2.5)?.value).toEqual({ number: { value: 2.5 } });
    expect(encodeOne('boolean', false)?.value).toEqual({ boolean: { value: false } });
    expect(encodeOne('SecureString', 's3cret')).toEqual({
      name: 'p',
      type: 'SecureString',
      scope: 'local',
      value: { 'secure-string': { value: 's3cret' } },
    });
  });

  it('matches plain type names case-insensitively and sends vRO spelling', () => {
    expect(encodeOne('STRING', 'x')?.type).toBe('string');
    expect(encodeOne('Number', 1)?.type).toBe('number');
    expect(encodeOne('date', '2024-05-01T12:00:00Z')?.type).toBe('Date');
    expect(encodeOne('properties', {})?.type).toBe('Properties');
    expect(encodeOne('securestring', 'x')?.type).toBe('SecureString');
    expect(encodeOne('array/STRING', [])?.type).toBe('Array/string');
  });

  it('sends a date as an ISO instant in UTC', () => {
    expect(encodeOne('Date', '2024-05-01T14:30:00+02:00')?.value).toEqual({
      date: { value: '2024-05-01T12:30:00.000Z' },
    });
  });

  it('wraps every array element by the element type, recursively, keeping nulls', () => {
    expect(encodeOne('Array/string', ['a', null, 'c'])?.value).toEqual({
      array: { elements: [{ string: { value: 'a' } }, null, { string: { value: 'c' } }] },
    });
    expect(encodeOne('Array/Array/number', [[1, 2], [3]])?.value).toEqual({
      array: {
        elements: [
          { array: { elements: [{ number: { value: 1 } }, { number: { value: 2 } }] } },
          { array: { elements: [{ number: { value: 3 } }] } },
        ],
      },
    });
  });

  it('wraps Properties values by their JSON kind, nesting objects and arrays', () => {
    expect(
      encodeOne('Properties', { a: 'x', b: 2, c: true, d: { e: 'f' }, g: [1] })?.value,
    ).toEqual({
      properties: {
        property: [
          { key: 'a', value: { string: { value: 'x' } } },
          { key: 'b', value: { number: { value: 2 } } },
          { key: 'c', value: { boolean: { value: true } } },
          {
            key: 'd',
            value: { properties: { property: [{ key: 'e', value: { string: { value: 'f' } } }] } },
          },
          { key: 'g', value: { array: { elements: [{ number: { value: 1 } }] } } },
        ],
      },
    });
  });

  it('sends SDK objects as sdk-object with the declared type, from an id or { id } or { type, id }', () => {
    const wrapped = { 'sdk-object': { type: 'VC:VirtualMachine', id: 'vcenter/vm-2660' } };
    expect(encodeOne('VC:VirtualMachine', 'vcenter/vm-2660')?.value).toEqual(wrapped);
    expect(encodeOne('VC:VirtualMachine', { id: 'vcenter/vm-2660' })?.value).toEqual(wrapped);
    expect(
      encodeOne('VC:VirtualMachine', { type: 'VC:VirtualMachine', id: 'vcenter/vm-2660' })?.value,
    ).toEqual(wrapped);
    expect(encodeOne('Array/AD:User', ['cn=a'])?.value).toEqual({
      array: { elements: [{ 'sdk-object': { type: 'AD:User', id: 'cn=a' } }] },
    });
  });

  it('leaves out an input without a value', () => {
    expect(
      encodeParameters([
        { name: 'a', type: 'string', value: null },
        { name: 'b', type: 'number' },
      ]),
    ).toEqual([]);
  });

  it.each([
    ['number', 'abc'],
    ['number', '2'],
    ['number', Number.NaN],
    ['number', Number.POSITIVE_INFINITY],
    ['string', 2],
    ['boolean', 'true'],
    ['date', '2024-05-01'],
    ['date', '2024-05-01T12:00:00'],
    ['date', 'yesterday'],
    ['date', 1714564800000],
    ['Array/string', 'a'],
    ['Array/number', [1, 'two']],
    ['Properties', 'a=b'],
    ['Properties', ['a']],
    ['Properties', { a: null }],
    ['SecureString', 12],
    ['VC:VirtualMachine', 12],
    ['VC:VirtualMachine', { id: '' }],
    ['VC:VirtualMachine', { type: 'VC:Datastore', id: 'ds-1' }],
    ['VC:VirtualMachine', { id: 'vm-1', name: 'web' }],
  ])('refuses a %s input of %j', (type, value) => {
    const error = rejection(type, value);
    expect(error.extensions['code']).toBe('BAD_USER_INPUT');
    expect(error.message).toContain('Input "p"');
  });

  it('names the failing array element and property key', () => {
    expect(rejection('Array/number', [1, 'two']).message).toContain('element 1');
    expect(rejection('Properties', { deep: { bad: null } }).message).toContain('key "deep"');
  });

  it.each(['Array', 'Any', 'Text', 'int', 'VC:', 'string ', 'Array/'])(
    'refuses the unsupported type %j even without a value',
    (type) => {
      expect(() => encodeParameters([{ name: 'p', type, value: null }])).toThrow(
        /Unsupported vRO type/,
      );
    },
  );

  it('refuses a name given twice and an empty name', () => {
    expect(() =>
      encodeParameters([
        { name: 'a', type: 'string', value: 'x' },
        { name: 'a', type: 'string', value: 'y' },
      ]),
    ).toThrow(/given twice/);
    expect(() => encodeParameters([{ name: '', type: 'string', value: 'x' }])).toThrow(/empty/);
  });

  it('parses nested array types', () => {
    expect(parseVroType('Array/Array/VC:VirtualMachine')).toEqual({
      kind: 'array',
      of: { kind: 'array', of: { kind: 'sdk', name: 'VC:VirtualMachine' } },
    });
  });
});
