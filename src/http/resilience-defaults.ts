/**
 * The upstream resilience defaults, stated once: config.ts falls back to them
 * for an unset variable, and the seam for an option its caller leaves out.
 * Why these values: docs/configuration.md, "Why these defaults".
 */
import type { RetryPolicy } from './retry-policy.ts';

export const defaultResilience = {
  /** UPSTREAM_TIMEOUT_MS: one call's deadline, retries included. */
  timeoutMs: 30_000,
  /** UPSTREAM_RETRIES (reads only), with jittered backoff from 100 ms to 2 s. */
  retry: { retries: 2, baseDelayMs: 100, maxDelayMs: 2000 } satisfies RetryPolicy,
  /** CIRCUIT_FAILURE_THRESHOLD, CIRCUIT_RESET_MS. */
  circuit: { failureThreshold: 5, resetMs: 10_000 },
  /**
   * UPSTREAM_MAX_CONCURRENCY (the adaptive limit's ceiling), UPSTREAM_MIN_CONCURRENCY
   * (its floor), UPSTREAM_MAX_QUEUE; `initial`: where the adaptive limit starts (the
   * former fixed default).
   */
  concurrency: { maxConcurrent: 256, minConcurrent: 4, initial: 32, maxQueue: 256 },
  /**
   * UPSTREAM_MAX_PAGES, UPSTREAM_MAX_LIST_BYTES: the pages one paged read of a
   * list may take, and their bodies' bytes together.
   */
  paging: { maxPages: 100, maxBytes: 64 * 1024 * 1024 },
};
