import { describe, expect, it } from 'vitest';
import { BadUserInputError } from '../../src/errors.ts';
import {
  connectionWindow,
  decodeCursor,
  encodeCursor,
  toConnection,
} from '../../src/resolvers/catalog/connection.ts';

describe('catalog connection cursors', () => {
  it('round-trips the absolute position of an edge', () => {
    for (const index of [0, 1, 49, 5000, 123456789]) {
      expect(decodeCursor('providers', encodeCursor('providers', index))).toBe(index);
    }
  });

  it('refuses a cursor of another list', () => {
    expect(() => decodeCursor('catalogItems', encodeCursor('providers', 3))).toThrow(
      BadUserInputError,
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
  ])('refuses the malformed cursor %j', (cursor) => {
    expect(() => decodeCursor('providers', cursor)).toThrow(BadUserInputError);
  });

  it('starts after the cursor and defaults first to 50', () => {
    expect(connectionWindow('providers', undefined, undefined)).toEqual({ offset: 0, size: 50 });
    expect(connectionWindow('providers', 10, encodeCursor('providers', 9))).toEqual({
      offset: 10,
      size: 10,
    });
  });

  it.each([0, -1, 5001])('refuses first = %i', (first) => {
    expect(() => connectionWindow('catalogItems', first, null)).toThrow(/first/);
  });

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
