import { BadUserInputError } from '../../errors.ts';

const defaultPageSize = 50;
const maxPageSize = 1000;

/** `first`: 1 to 1000; null means the default (the field's own, else 50). */
export function pageSize(first: number | null | undefined, fallback = defaultPageSize): number {
  if (first === null || first === undefined) return fallback;
  if (!Number.isInteger(first) || first < 1 || first > maxPageSize) {
    throw new BadUserInputError(`first must be between 1 and ${maxPageSize}.`, 'first');
  }
  return first;
}

/** An opaque cursor: base64 of the edge's 0-based offset. */
export function offsetCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`, 'utf8').toString('base64');
}

/** The offset to start at after the edge of `after`; 0 without a cursor. */
export function startAfter(after: string | null | undefined): number {
  if (after === null || after === undefined) return 0;
  const match = /^offset:(0|[1-9]\d{0,8})$/.exec(Buffer.from(after, 'base64').toString('utf8'));
  if (match?.[1] === undefined || offsetCursor(Number(match[1])) !== after) {
    throw new BadUserInputError('after is not a cursor of this connection.', 'after');
  }
  return Number(match[1]) + 1;
}

/** A connection page of `nodes` starting at the 0-based `startIndex` of `total`. */
export function offsetConnection<T>(nodes: T[], startIndex: number, total: number) {
  const edges = nodes.map((node, index) => ({ cursor: offsetCursor(startIndex + index), node }));
  return {
    edges,
    nodes,
    totalCount: total,
    pageInfo: {
      hasNextPage: startIndex + nodes.length < total,
      hasPreviousPage: startIndex > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
