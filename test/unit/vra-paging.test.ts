import { describe, expect, it } from 'vitest';
import {
  maxPageSize,
  planWindow,
  readWindow,
  type PageRequest,
} from '../../src/upstreams/vra/paging.ts';
import type { WirePage } from '../../src/upstreams/vra/wire.ts';

/** A list served the way vRA pages it: 1-based pages aligned on multiples of limit. */
function fakeList(total: number) {
  const items = Array.from({ length: total }, (_, i) => i);
  const calls: PageRequest[] = [];
  const fetchPage = (request: PageRequest): Promise<WirePage<number>> => {
    calls.push(request);
    expect(request.limit).toBeGreaterThanOrEqual(1);
    expect(request.limit).toBeLessThanOrEqual(maxPageSize);
    expect(request.page).toBeGreaterThanOrEqual(1);
    const offset = (request.page - 1) * request.limit;
    return Promise.resolve({
      content: items.slice(offset, offset + request.limit),
      metadata: {
        size: request.limit,
        totalElements: total,
        totalPages: Math.ceil(total / request.limit),
        number: request.page,
        offset,
      },
    });
  };
  return { fetchPage, calls };
}

describe('planWindow', () => {
  it('reads page 1 with limit = first from the start of a list', () => {
    expect(planWindow(0, 20)).toEqual({ limit: 20, page: 1, skip: 0, pages: 1 });
  });

  it('reads the aligned page when the offset is a multiple of first', () => {
    expect(planWindow(40, 20)).toEqual({ limit: 20, page: 3, skip: 0, pages: 1 });
  });

  it('widens the page so that one page covers a window that is not aligned', () => {
    // offset 5, first 10: limit 15 gives page 1 = [0, 15), which holds [5, 15).
    expect(planWindow(5, 10)).toEqual({ limit: 15, page: 1, skip: 5, pages: 1 });
  });

  it('falls back to two pages of first when no page of up to 2*first covers the window', () => {
    const plan = planWindow(maxPageSize - 1, maxPageSize);
    expect(plan).toEqual({ limit: maxPageSize, page: 1, skip: maxPageSize - 1, pages: 2 });
  });

  it('always plans pages that cover the window, within vRA limits, reading at most 2*first', () => {
    for (let first = 1; first <= 40; first++) {
      for (let offset = 0; offset <= 400; offset++) {
        const plan = planWindow(offset, first);
        const start = (plan.page - 1) * plan.limit;
        expect(plan.limit).toBeLessThanOrEqual(Math.min(maxPageSize, 2 * first));
        expect(plan.limit).toBeGreaterThanOrEqual(first);
        expect(start + plan.skip).toBe(offset);
        expect(start + plan.pages * plan.limit).toBeGreaterThanOrEqual(offset + first);
      }
    }
  });
});

describe('readWindow', () => {
  it('returns exactly first items after any offset, in order, in at most two calls', async () => {
    for (const first of [1, 3, 7, 20]) {
      for (let offset = 0; offset < 60; offset++) {
        const list = fakeList(100);
        const window = await readWindow(list.fetchPage, offset, first);
        expect(window.items).toEqual(Array.from({ length: first }, (_, i) => offset + i));
        expect(window.totalCount).toBe(100);
        expect(list.calls.length).toBeLessThanOrEqual(2);
      }
    }
  });

  it('returns the rest of the list near its end without asking for a page past it', async () => {
    const list = fakeList(33);
    const window = await readWindow(list.fetchPage, 30, 10);
    expect(window.items).toEqual([30, 31, 32]);
    expect(list.calls).toHaveLength(1);
  });

  it('returns nothing after the end of the list', async () => {
    const list = fakeList(33);
    const window = await readWindow(list.fetchPage, 40, 10);
    expect(window.items).toEqual([]);
    expect(window.totalCount).toBe(33);
  });

  it('reads the second page of a two-page plan only when the window runs into it', async () => {
    const list = fakeList(12000);
    const window = await readWindow(list.fetchPage, 1, maxPageSize);
    expect(window.items).toHaveLength(maxPageSize);
    expect(window.items[0]).toBe(1);
    expect(window.items.at(-1)).toBe(maxPageSize);
    expect(list.calls).toEqual([
      { page: 1, limit: maxPageSize },
      { page: 2, limit: maxPageSize },
    ]);
  });
});
