import { describe, expect, it } from 'vitest';
import { checkDeclaredInputs } from '../../src/inputs/workflow-inputs.ts';

const declared = [
  { name: 'text', type: 'string' },
  { name: 'count', type: 'number' },
  { name: 'vm', type: 'VC:VirtualMachine' },
  { name: 'anything', type: 'Any' },
  { name: 'names', type: 'Array/string' },
];

describe('checkDeclaredInputs', () => {
  it('accepts declared names of the declared types, plain types in any case', () => {
    expect(() =>
      checkDeclaredInputs(
        [
          { name: 'text', type: 'String' },
          { name: 'count', type: 'NUMBER' },
          { name: 'vm', type: 'VC:VirtualMachine' },
          { name: 'names', type: 'array/STRING' },
        ],
        'Wf',
        declared,
      ),
    ).not.toThrow();
  });

  it('leaves a declared type it cannot encode to vRO', () => {
    expect(() =>
      checkDeclaredInputs([{ name: 'anything', type: 'string' }], 'Wf', declared),
    ).not.toThrow();
  });

  it.each([
    [
      'a name in another case',
      { name: 'Text', type: 'string' },
      /^Input "Text" is not an input of workflow "Wf"; its inputs are "text", "count"/,
    ],
    [
      'another plain type',
      { name: 'count', type: 'string' },
      /^Input "count" is declared as number, not string\.$/,
    ],
    [
      'another plugin type',
      { name: 'vm', type: 'VC:Datastore' },
      /declared as VC:VirtualMachine, not VC:Datastore/,
    ],
    [
      'an array of another type',
      { name: 'names', type: 'Array/number' },
      /declared as Array\/string, not Array\/number/,
    ],
  ])('refuses %s with BAD_USER_INPUT on inputs', (_what, input, message) => {
    expect(() => checkDeclaredInputs([input], 'Wf', declared)).toThrow(message);
    try {
      checkDeclaredInputs([input], 'Wf', declared);
    } catch (error) {
      expect((error as { extensions: unknown }).extensions).toEqual({
        code: 'BAD_USER_INPUT',
        argument: 'inputs',
      });
    }
  });

  it('says so when the workflow takes no inputs', () => {
    expect(() => checkDeclaredInputs([{ name: 'x', type: 'string' }], 'Wf', [])).toThrow(
      'Input "x" is not an input of workflow "Wf"; it takes no inputs.',
    );
  });
});
