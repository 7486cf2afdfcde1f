/**
 * The one pagination scheme of every Relay connection of the schema: `first`
 * from 1 to the list's largest page, `after` an opaque cursor naming its list
 * and the absolute 0-based position of an edge. Arguments are checked before
 * any upstream call; a bad one is BAD_USER_INPUT naming the argument.
 */
import { BadUserInputError } from '../errors.ts';
import { maxPageSize as vraMaxPageSize } from '../upstreams/vra/paging.ts';

/** vRO documents no cap on `maxResult`: the gateway's own, which bounds one answer's size. */
const vroMaxFirst = 1000;

/** Every connection, with the largest `first` it takes: vRA's is what one vRA call answers at most. */
const largestFirst = {
  workflows: vroMaxFirst,
  executions: vroMaxFirst,
  providers: vraMaxPageSize,
  catalogItems: vraMaxPageSize,
  entitledCatalogItems: vraMaxPageSize,
  catalogRequests: vraMaxPageSize,
} as const;

/** Which list a cursor belongs to: a providers cursor is refused by catalogItems. */
type ConnectionKind = keyof typeof largestFirst;

/** Positions below 10^9 keep vRA's page * limit inside a Java int. */
const cursorPattern = /^([A-Za-z]+):(0|[1-9]\d{0,8})$/;

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
  if (match !== null && match[1] === kind) return Number(match[2]);
  const legacy = isVroList(kind) ? legacyOffset(cursor) : undefined;
  if (legacy !== undefined) return legacy;
  throw new BadUserInputError(
    `"after" is not a cursor of ${kind}: pass an endCursor or edge cursor from ${kind}.`,
    'after',
  );
}

function isVroList(kind: ConnectionKind): boolean {
  return kind === 'workflows' || kind === 'executions';
}

/**
 * A cursor of release 0.1.0's vRO lists (standard base64 of `offset:N`),
 * still accepted for one release so that a client holding one across an
 * upgrade goes on where it was. Remove in the release after next.
 */
function legacyOffset(cursor: string): number | undefined {
  const match = /^offset:(0|[1-9]\d{0,8})$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  if (match?.[1] === undefined) return undefined;
  const offset = Number(match[1]);
  return Buffer.from(`offset:${offset}`, 'utf8').toString('base64') === cursor ? offset : undefined;
}

/**
 * The window a `first`/`after` pair asks for. `fallback` is the page size of
 * an explicit `first: null` (the schema's default, which GraphQL applies only
 * to an absent argument).
 */
export function connectionWindow(
  kind: ConnectionKind,
  first: number | null | undefined,
  after: string | null | undefined,
  fallback = 50,
): { offset: number; size: number } {
  const size = first ?? fallback;
  const largest = largestFirst[kind];
  if (!Number.isInteger(size) || size < 1 || size > largest) {
    throw new BadUserInputError(`"first" must be from 1 to ${largest} (got ${size}).`, 'first');
  }
  const offset = after === null || after === undefined ? 0 : decodeCursor(kind, after) + 1;
  return { offset, size };
}

/** Items read from `offset`, and how many the whole list holds. */
interface ConnectionPage<T> {
  items: T[];
  totalCount: number;
}

interface Connection<T> {
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

/**
 * A Relay connection over the items read from `offset`. Its edges and page
 * info (a cursor per item) are made when a query first reads them: most
 * select `nodes` only.
 */
export function toConnection<T>(
  kind: ConnectionKind,
  offset: number,
  page: ConnectionPage<T>,
): Connection<T> {
  return new PageConnection(kind, offset, page.items, page.totalCount);
}

class PageConnection<T> implements Connection<T> {
  readonly nodes: T[];
  readonly totalCount: number;
  readonly #kind: ConnectionKind;
  readonly #offset: number;
  #edges: Connection<T>['edges'] | undefined;

  constructor(kind: ConnectionKind, offset: number, nodes: T[], totalCount: number) {
    this.nodes = nodes;
    this.totalCount = totalCount;
    this.#kind = kind;
    this.#offset = offset;
  }

  get edges(): Connection<T>['edges'] {
    this.#edges ??= this.nodes.map((node, i) => ({
      cursor: encodeCursor(this.#kind, this.#offset + i),
      node,
    }));
    return this.#edges;
  }

  get pageInfo(): Connection<T>['pageInfo'] {
    const count = this.nodes.length;
    const edges = count === 0 ? undefined : this.edges;
    return {
      hasNextPage: this.#offset + count < this.totalCount,
      hasPreviousPage: this.#offset > 0,
      startCursor: edges?.[0]?.cursor ?? null,
      endCursor: edges?.at(-1)?.cursor ?? null,
    };
  }
}
