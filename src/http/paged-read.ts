import {
  UpstreamBadResponseError,
  UpstreamBodyTooLargeError,
  UpstreamTimeoutError,
  type UpstreamService,
} from '../errors.ts';

/** What one paged read of a list may take: pages, and their bodies' bytes together. */
export interface PagingLimits {
  maxPages: number;
  maxBytes: number;
}

/** The seam a paged read is made over: its service, timeout and limits. */
export interface PagingSeam {
  readonly service: UpstreamService;
  readonly timeoutMs: number;
  readonly paging: PagingLimits;
}

/** The size of one answer's body as the read counts it. */
export interface PageBody {
  body: string;
  bytes?: Buffer;
}

/**
 * One read of a whole list, page after page, within bounds an appliance
 * cannot move: at most `maxPages` calls and `maxBytes` of bodies together
 * (each page may be at most what is left of them), and no page begun once the
 * request's budget is spent. Past a bound the read fails with
 * UPSTREAM_BAD_RESPONSE (UPSTREAM_TIMEOUT for the budget): an endless cursor,
 * an impossible total or a list of huge pages fails its field alone.
 */
export class PagedRead {
  readonly #seam: PagingSeam;
  readonly #remainingBudgetMs: () => number;
  #pages = 0;
  #bytes = 0;

  constructor(seam: PagingSeam, remainingBudgetMs: () => number) {
    this.#seam = seam;
    this.#remainingBudgetMs = remainingBudgetMs;
  }

  get pages(): number {
    return this.#pages;
  }

  /**
   * Refuses a list whose first page announces more pages than the read may
   * take (`totalElements: 1e12`): no other page is asked for.
   */
  expectPages(announced: number): void {
    const { maxPages } = this.#seam.paging;
    if (announced > maxPages) throw this.#tooMany(`announces ${announced} pages`);
  }

  /**
   * Sends the next page's call with `send` (given the most bytes its body may
   * have) and counts its answer; throws instead of calling past the page cap
   * or the request's budget, and past the byte cap.
   */
  async next<T extends PageBody>(send: (maxBytes: number) => Promise<T>): Promise<T> {
    const { maxPages, maxBytes } = this.#seam.paging;
    if (this.#pages >= maxPages) throw this.#tooMany('goes on');
    if (this.#pages > 0 && this.#remainingBudgetMs() <= 0) {
      throw new UpstreamTimeoutError(this.#seam.service, this.#seam.timeoutMs);
    }
    this.#pages += 1;
    const left = maxBytes - this.#bytes;
    let answer: T;
    try {
      answer = await send(left);
    } catch (error) {
      // The seam's refusal of a body past the page's limit, when that limit is what the list had left.
      throw error instanceof UpstreamBodyTooLargeError && error.limit === left
        ? this.#tooLarge()
        : error;
    }
    this.#bytes += answer.bytes?.length ?? Buffer.byteLength(answer.body, 'utf8');
    if (this.#bytes > maxBytes) throw this.#tooLarge();
    return answer;
  }

  #tooLarge(): UpstreamBadResponseError {
    return new UpstreamBadResponseError(
      this.#seam.service,
      `a list larger than ${this.#seam.paging.maxBytes} bytes across its pages (UPSTREAM_MAX_LIST_BYTES)`,
    );
  }

  #tooMany(what: string): UpstreamBadResponseError {
    const { maxPages } = this.#seam.paging;
    return new UpstreamBadResponseError(
      this.#seam.service,
      `a list that ${what} past ${maxPages} pages (UPSTREAM_MAX_PAGES)`,
    );
  }
}
