import { describe, expect, it } from 'vitest';
import { BadUserInputError } from '../../src/errors.ts';
import {
  connectionWindow,
  decodeCursor,
  encodeCursor,
  toConnection,
} from '../../src/resolvers/connection.ts';

describe('connection cursors', () => {
  it('round-trips the absolute position of an edge', () => {
    for (const index of [0, 1, 49, 5000, 123456789]) {
      expect(decodeCursor('providers', encodeCursor('providers', index))).toBe(index);
      expect(decodeCursor('workflows', encodeCursor('workflows', index))).toBe(index);
    }
  });

  it('refuses a cursor of another list', () => {
    expect(() => decodeCursor('catalogItems', encodeCursor('providers', 3))).toThrow(
      BadUserInputError,
    );
    expect(() => decodeCursor('workflows', encodeCursor('executions', 3))).toThrow(
      /not a cursor of workflows/,
    );
  });

  it.each([
    '',
    'abc',
    '!!!',
    'cHJvdmlkZXJzOi0x',
    'cHJvdmlkZXJzOjAx',
    'x'.repeat(100),
    Buffer.from('providers:1000000000').toString('base64url'),
    Buffer.from('offset:3').toString('base64'),
  ])('refuses the malformed cursor %j', (cursor) => {
    expect(() => decodeCursor('providers', cursor)).toThrow(BadUserInputError);
  });

  it('still takes the base64 offset cursors of the previous release on the vRO lists', () => {
    const old = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64');
    expect(decodeCursor('workflows', old(0))).toBe(0);
    expect(decodeCursor('workflows', old(49))).toBe(49);
    expect(decodeCursor('executions', old(19))).toBe(19);
  });

  it.each([
    'b2Zmc2V0Oi0x',
    Buffer.from('offset:01').toString('base64'),
    `${Buffer.from('offset:3').toString('base64')}=`,
    Buffer.from('offset:1000000000').toString('base64'),
  ])('refuses the malformed old offset cursor %j', (cursor) => {
    expect(() => decodeCursor('workflows', cursor)).toThrow(/"after" is not a cursor of workflows/);
  });
});

describe('connection windows', () => {
  it('starts after the cursor and defaults first to 50, or to the field default on null', () => {
    expect(connectionWindow('providers', undefined, undefined)).toEqual({ offset: 0, size: 50 });
    expect(connectionWindow('providers', 10, encodeCursor('providers', 9))).toEqual({
      offset: 10,
      size: 10,
    });
    expect(connectionWindow('executions', null, null, 20)).toEqual({ offset: 0, size: 20 });
  });

  it.each([0, -1, 5001, 1.5])('refuses first = %d on a vRA list, naming the range', (first) => {
    expect(() => connectionWindow('catalogItems', first, null)).toThrow(
      `"first" must be from 1 to 5000 (got ${first}).`,
    );
  });

  it('takes 1 to 1000 on a vRO list, in the same words', () => {
    expect(connectionWindow('workflows', 1, null).size).toBe(1);
    expect(connectionWindow('workflows', 1000, null).size).toBe(1000);
    for (const first of [0, -5, 1001]) {
      expect(() => connectionWindow('workflows', first, null)).toThrow(
        `"first" must be from 1 to 1000 (got ${first}).`,
      );
    }
  });

  it('checks first before the cursor', () => {
    expect(() => connectionWindow('workflows', 0, 'not-a-cursor')).toThrow(/"first"/);
  });
});

describe('connection pages', () => {
  it('builds pageInfo from the offset, the items and the total', () => {
    const connection = toConnection('providers', 10, { items: ['a', 'b'], totalCount: 13 });
    expect(connection.nodes).toEqual(['a', 'b']);
    expect(connection.edges.map((e) => decodeCursor('providers', e.cursor))).toEqual([10, 11]);
    expect(connection.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: true,
      startCursor: connection.edges[0]?.cursor,
      endCursor: connection.edges[1]?.cursor,
    });
    expect(connection.totalCount).toBe(13);
  });

  it('gives null cursors and no next page for an empty page', () => {
    const connection = toConnection('catalogItems', 0, { items: [], totalCount: 0 });
    expect(connection.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: null,
      endCursor: null,
    });
  });
});

describe('connection cursors, to the character', () => {
  const b64url = (text: string) => Buffer.from(text).toString('base64url');
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const refused = (run: () => unknown): unknown => {
    try {
      run();
    } catch (error) {
      if (error instanceof BadUserInputError) return error.extensions['argument'];
      throw error;
    }
    return 'accepted';
  };

  it('refuses a cursor with anything before or after its kind and position', () => {
    expect(decodeCursor('providers', b64url('providers:5'))).toBe(5);
    expect(refused(() => decodeCursor('providers', b64url('!providers:5')))).toBe('after');
    expect(refused(() => decodeCursor('providers', b64url('providers:5x')))).toBe('after');
    expect(refused(() => decodeCursor('providers', `.${b64url('providers:5')}`))).toBe('after');
    expect(refused(() => decodeCursor('providers', `${b64url('providers:5')}.`))).toBe('after');
  });

  it('still reads an old offset cursor of a vRO list, of any number of digits up to 9', () => {
    expect(decodeCursor('workflows', b64('offset:12'))).toBe(12);
    expect(decodeCursor('executions', b64('offset:123456789'))).toBe(123456789);
    expect(refused(() => decodeCursor('workflows', b64('offset:1234567890')))).toBe('after');
    expect(refused(() => decodeCursor('providers', b64('offset:12')))).toBe('after');
  });

  it('names the argument it refuses', () => {
    expect(refused(() => connectionWindow('providers', 0, null))).toBe('first');
    expect(refused(() => connectionWindow('providers', 10, 'nope'))).toBe('after');
  });

  it('tells whether a page has a next one, and cursors of its first and last edges', () => {
    const page = toConnection('providers', 10, { items: ['a', 'b', 'c'], totalCount: 13 });
    expect(page.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: true,
      startCursor: encodeCursor('providers', 10),
      endCursor: encodeCursor('providers', 12),
    });
    expect(
      toConnection('providers', 10, { items: ['a', 'b', 'c'], totalCount: 14 }).pageInfo
        .hasNextPage,
    ).toBe(true);
  });
});
