import type { RecordedRequest } from '../sim-server.ts';
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
