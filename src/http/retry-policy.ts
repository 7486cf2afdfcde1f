import type { HttpMethod } from './upstream-request.ts';

export interface RetryPolicy {
  /** Retries after the first attempt (0: none). */
  retries: number;
  /** Backoff before the first retry; doubles each time, full jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Only reads are retried: a POST/PUT/DELETE that may have reached the upstream is never sent twice. */
export function isIdempotent(method: HttpMethod): boolean {
  return method === 'GET' || method === 'HEAD';
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

/** Full-jitter exponential backoff for retry number `attempt` (1-based). */
export function backoffMs(
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/** The two HTTP-date forms that carry their zone (RFC 9110 5.6.7): IMF-fixdate and RFC 850. */
const httpDate =
  /^(?:[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4}|[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2}) \d{2}:\d{2}:\d{2} GMT$/;

/** Milliseconds a `Retry-After` header asks for (seconds or an HTTP date), or undefined. */
export function retryAfterMs(
  header: string | undefined,
  now: number = Date.now(),
): number | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Date.parse alone would take almost anything ("-5", "1.5") for a date.
  const date = httpDate.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
