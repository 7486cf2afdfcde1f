import type { GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { fieldActor, nameFieldActor } from '../../src/audit/field-actor.ts';

const infoOf = (fieldName: string) => ({ fieldName }) as unknown as GraphQLResolveInfo;

describe('fieldActor', () => {
  it('names the actor of the one field run it was named for, and of no other', () => {
    const signIn = infoOf('signIn');
    const beside = infoOf('createIpSet');
    expect(fieldActor(signIn)).toBeUndefined();
    nameFieldActor(signIn, { name: 'dba@vsphere.local', via: 'anonymous' });
    nameFieldActor(signIn, { name: 'dba@vsphere.local', via: 'session' });
    expect(fieldActor(signIn)).toEqual({ name: 'dba@vsphere.local', via: 'session' });
    expect(fieldActor(beside)).toBeUndefined();
    expect(fieldActor({ ...signIn })).toBeUndefined();
  });
});
