import type { RecordedRequest } from '../../sim-server.ts';
import { badRequest } from './errors.ts';

/** `$top`/`$skip` of a request; Service Broker's pages default to 20 items. */
export interface Paging {
  top: number;
  skip: number;
}

function nonNegativeInteger(request: RecordedRequest, name: string): number | undefined {
  const raw = request.query.get(name);
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw)) throw badRequest(`Invalid value '${raw}' for parameter ${name}`);
  return Number(raw);
}

export function pagingOf(request: RecordedRequest, defaultTop = 20): Paging {
  const top = nonNegativeInteger(request, '$top') ?? defaultTop;
  if (top === 0) throw badRequest('Page size must not be less than one');
  return { top, skip: nonNegativeInteger(request, '$skip') ?? 0 };
}

/**
 * An array parameter (`collectionFormat: multi`): repeated (`projects=a&projects=b`)
 * or comma-separated, as the server's Spring binding takes both.
 */
export function listParameter(request: RecordedRequest, name: string): string[] {
  return request.query
    .getAll(name)
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

/** The Spring Data page of the catalog, deployment and blueprint services (`PageOf…`). */
export function springPage<T>(
  all: readonly T[],
  { top, skip }: Paging,
): {
  content: T[];
  totalElements: number;
  totalPages: number;
  number: number;
  size: number;
  numberOfElements: number;
  first: boolean;
  last: boolean;
  empty: boolean;
  sort: { empty: boolean; sorted: boolean; unsorted: boolean };
} {
  const content = all.slice(skip, skip + top);
  const totalPages = Math.ceil(all.length / top);
  const number = Math.floor(skip / top);
  return {
    content,
    totalElements: all.length,
    totalPages,
    number,
    size: top,
    numberOfElements: content.length,
    first: skip === 0,
    last: skip + top >= all.length,
    empty: content.length === 0,
    sort: { empty: true, sorted: false, unsorted: true },
  };
}

/** The IaaS API's page (`ProjectResult`): `content`, `totalElements`, `numberOfElements`. */
export function iaasPage<T>(
  all: readonly T[],
  { top, skip }: Paging,
): { content: T[]; totalElements: number; numberOfElements: number } {
  const content = all.slice(skip, skip + top);
  return { content, totalElements: all.length, numberOfElements: content.length };
}

/**
 * `$orderby`: "property (asc|desc)" (ascending by default), on the properties
 * given; a property the list cannot sort by is refused with 400.
 */
export function orderedBy<T>(
  request: RecordedRequest,
  items: readonly T[],
  keys: Record<string, (item: T) => string>,
): T[] {
  const raw = request.query.get('$orderby');
  if (raw === null) return [...items];
  const [property = '', direction = 'asc', ...rest] = raw.trim().split(/\s+/);
  const key = Object.hasOwn(keys, property) ? keys[property] : undefined;
  if (key === undefined || rest.length > 0 || !/^(?:asc|desc)$/i.test(direction)) {
    throw badRequest(`Invalid value '${raw}' for parameter $orderby`);
  }
  const sign = direction.toLowerCase() === 'desc' ? -1 : 1;
  return [...items].sort((a, b) => sign * key(a).localeCompare(key(b)));
}
