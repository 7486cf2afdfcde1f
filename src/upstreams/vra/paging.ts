import type { PagedRead } from '../../http/paged-read.ts';
import type { WirePage } from './wire.ts';

/** One page of a vRA list: `page` is 1-based, `limit` 1..5000. */
export interface PageRequest {
  page: number;
  limit: number;
}

/** vRA answers at most this many items per call (docs/upstreams.md, vRA). */
export const maxPageSize = 5000;

/** How to read the window [offset, offset + first) with vRA's 1-based `page`/`limit`. */
export interface WindowPlan {
  limit: number;
  /** 1-based page holding `offset`. */
  page: number;
  /** Items to drop from the start of that page. */
  skip: number;
  /** 1: the page covers the whole window; 2: the window may run on into the next page. */
  pages: 1 | 2;
}

/**
 * vRA pages are aligned on multiples of `limit`, but a cursor may point
 * anywhere. Prefer ONE page whose bounds contain the whole window: the
 * smallest limit in [first, 2*first] (and at most 5000) with no page boundary
 * inside the window; it never reads more than the two-page plan would. When
 * there is none, read the page of size `first` that holds `offset` and, if the
 * window runs past its end, the next one.
 */
export function planWindow(offset: number, first: number): WindowPlan {
  const last = offset + first - 1;
  const largest = Math.min(maxPageSize, 2 * first);
  for (let limit = first; limit <= largest; limit++) {
    const index = Math.floor(offset / limit);
    if (Math.floor(last / limit) === index) {
      return { limit, page: index + 1, skip: offset - index * limit, pages: 1 };
    }
  }
  const index = Math.floor(offset / first);
  return { limit: first, page: index + 1, skip: offset - index * first, pages: 2 };
}

export interface Window<T> {
  items: T[];
  /** `metadata.totalElements` of the last page read. */
  totalCount: number;
}

/** Reads exactly `first` items from `offset` (fewer at the end of the list) in one or two page calls. */
export async function readWindow<T>(
  fetchPage: (page: PageRequest) => Promise<WirePage<T>>,
  offset: number,
  first: number,
): Promise<Window<T>> {
  const plan = planWindow(offset, first);
  const head = await fetchPage({ page: plan.page, limit: plan.limit });
  const items = head.content.slice(plan.skip, plan.skip + first);
  const more = plan.page * plan.limit < head.metadata.totalElements;
  if (plan.pages === 1 || items.length >= first || !more) {
    return { items, totalCount: head.metadata.totalElements };
  }
  const tail = await fetchPage({ page: plan.page + 1, limit: plan.limit });
  return {
    items: items.concat(tail.content.slice(0, first - items.length)),
    totalCount: tail.metadata.totalElements,
  };
}

/**
 * A whole list: one call of up to 5000, more pages (one after another) only
 * if vRA holds more, within the read's paging limits: a total past them
 * fails at once, and `fetchPage` sends each call through `pages.next`.
 */
export async function readAll<T>(
  pages: PagedRead,
  fetchPage: (page: PageRequest) => Promise<WirePage<T>>,
): Promise<T[]> {
  const head = await fetchPage({ page: 1, limit: maxPageSize });
  const count = Math.ceil(head.metadata.totalElements / maxPageSize);
  // One page of every item (`limit` ignored) is the whole list as well.
  if (count <= 1 || head.content.length >= head.metadata.totalElements) return head.content;
  pages.expectPages(count);
  const items = head.content;
  for (let page = 2; page <= count; page++) {
    const next = await fetchPage({ page, limit: maxPageSize });
    for (const item of next.content) items.push(item);
    if (next.content.length === 0) break;
  }
  return items;
}
