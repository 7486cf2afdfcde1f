import { describe, expect, it } from 'vitest';
import {
  checkAll,
  checkAtLeast,
  checkLength,
  checkNotBlank,
  checkOneOf,
  checkPattern,
  optional,
  refuse,
} from '../../src/inputs/check.ts';
import { badInput } from '../helpers/thrown.ts';

describe('the input checks', () => {
  it('answers a good value as it is', () => {
    expect(checkPattern('ab', /^[a-z]+$/, 'id', 'must be letters')).toBe('ab');
    expect(checkNotBlank(' a ', 'name')).toBe(' a ');
    expect(checkLength('abc', 3, 'name')).toBe('abc');
    expect(checkOneOf('TCP', ['TCP', 'UDP'], 'protocol')).toBe('TCP');
    expect(checkAtLeast(0, 0, 'position')).toBe(0);
  });

  it('refuses with BAD_USER_INPUT whose message starts with the argument path', () => {
    const cases: Array<[() => unknown, string, string]> = [
      [
        () => checkPattern('a b', /^\S+$/, 'input.id', 'must be one word'),
        'input.id',
        'input.id must be one word.',
      ],
      [() => checkNotBlank(' \t', 'input.name'), 'input.name', 'input.name must not be empty.'],
      [
        () => checkLength('abcd', 3, 'rules[2].notes'),
        'rules[2].notes',
        'rules[2].notes is longer than 3 characters.',
      ],
      [
        () => checkOneOf('ftp', ['TCP', 'UDP'], 'input.protocol'),
        'input.protocol',
        'input.protocol must be one of TCP, UDP; got "ftp".',
      ],
      [() => checkAtLeast(-1, 0, 'position'), 'position', 'position must be 0 or more.'],
      [() => refuse('file', 'The package file is empty.'), 'file', 'The package file is empty.'],
    ];
    for (const [run, argument, message] of cases) {
      const error = badInput(run);
      expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', argument });
      expect(error.message).toBe(message);
    }
  });

  it('passes null and undefined through optional without checking them', () => {
    const never = () => {
      throw new Error('checked');
    };
    expect(optional(null, never)).toBeNull();
    expect(optional(undefined, never)).toBeUndefined();
    expect(optional('a', (value) => `${value}!`)).toBe('a!');
  });

  it('names every problem at once, with the first one as the argument', () => {
    const error = badInput(() =>
      checkAll([
        () => checkNotBlank('', 'input.name'),
        () => checkNotBlank('ok', 'input.iconId'),
        () => checkAtLeast(-1, 0, 'input.count'),
      ]),
    );
    expect(error.message).toBe(
      'Invalid input: input.name must not be empty; input.count must be 0 or more.',
    );
    expect(error.extensions['argument']).toBe('input.name');
  });

  it('lets a failure that is not bad input through checkAll unchanged', () => {
    const bug = new TypeError('bug');
    expect(() =>
      checkAll([
        () => {
          throw bug;
        },
      ]),
    ).toThrow(bug);
    expect(() => checkAll([() => 'fine'])).not.toThrow();
  });
});
