import { BadUserInputError } from '../../errors.ts';
import { maxPageSize, type Window } from '../../upstreams/vra/paging.ts';

/** Which list a cursor belongs to: a providers cursor is refused by catalogItems. */
export type ConnectionKind =
  'providers' | 'catalogItems' | 'entitledCatalogItems' | 'catalogRequests';

/** Positions below 10^9 keep vRA's page * limit inside a Java int. */
const cursorPattern =
  /^(providers|catalogItems|entitledCatalogItems|catalogRequests):(0|[1-9]\d{0,8})$/;

/** An opaque cursor naming the absolute 0-based position of an edge in its list. */
export function encodeCursor(kind: ConnectionKind, index: number): string {
  return Buffer.from(`${kind}:${index}`, 'utf8').toString('base64url');
}

/** The position a cursor names; BAD_USER_INPUT for anything this gateway did not issue for `kind`. */
export function decodeCursor(kind: ConnectionKind, cursor: string): number {
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor)
    ? Buffer.from(cursor, 'base64url').toString('utf8')
    : '';
  const match = cursorPattern.exec(text);
  if (match === null || match[1] !== kind) {
    throw new BadUserInputError(
      `"after" is not a cursor of ${kind}: pass an endCursor or edge cursor from ${kind}.`,
      'after',
    );
  }
  return Number(match[2]);
}

/** The window a `first`/`after` pair asks for; checked before any upstream call. */
export function connectionWindow(
  kind: ConnectionKind,
  first: number | null | undefined,
  after: string | null | undefined,
): { offset: number; size: number } {
  const size = first ?? 50;
  if (!Number.isInteger(size) || size < 1 || size > maxPageSize) {
    throw new BadUserInputError(`"first" must be from 1 to ${maxPageSize} (got ${size}).`, 'first');
  }
  const offset = after === null || after === undefined ? 0 : decodeCursor(kind, after) + 1;
  return { offset, size };
}

export interface Connection<T> {
  edges: Array<{ cursor: string; node: T }>;
  nodes: T[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  totalCount: number;
}

/** A Relay connection over the items read from `offset`. */
export function toConnection<T>(
  kind: ConnectionKind,
  offset: number,
  window: Window<T>,
): Connection<T> {
  const edges = window.items.map((node, i) => ({ cursor: encodeCursor(kind, offset + i), node }));
  return {
    edges,
    nodes: window.items,
    pageInfo: {
      hasNextPage: offset + window.items.length < window.totalCount,
      hasPreviousPage: offset > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: window.totalCount,
  };
}
