import { describe, expect, it } from 'vitest';
import { typeRef } from '../../simulators/vra/v7/seed.ts';

describe('the vRA simulator seed', () => {
  it('labels a type id it does not know with the id itself, even one named like an Object property', () => {
    expect(typeRef('__proto__')).toEqual({ id: '__proto__', label: '__proto__' });
    expect(typeRef('constructor')).toEqual({ id: 'constructor', label: 'constructor' });
    expect(typeRef('Infrastructure.Virtual').label).not.toBe('Infrastructure.Virtual');
  });
});
