/**
 * Read-modify-write against a generation number: one cycle at a time per key
 * in this process (a KeyedLock), and a cycle that the manager refuses as a
 * concurrent change (409 or 412) starts again on a fresh read after a
 * jittered pause, up to a bound. Serves the vShield App firewall and the
 * NSX-v distributed firewall sections alike.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { isConflict, UpstreamTimeoutError } from '../../errors.ts';
import { backoffMs, type RetryPolicy } from '../../http/retry-policy.ts';
import { ClientGoneError, remainingBudgetMs, type CallContext } from '../../http/upstream-http.ts';
import { LockWaitAbortedError, LockWaitTimeoutError, type KeyedLock } from './keyed-lock.ts';

/** The pause between cycles is the seam's jittered backoff (backoffMs), with bounds of its own. */
export interface ConflictRetry extends Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'> {
  /** Read-modify-write cycles before a conflict is given up as CONFLICT. */
  attempts: number;
  random: () => number;
}

export const defaultConflictRetry: ConflictRetry = {
  attempts: 10,
  baseDelayMs: 10,
  maxDelayMs: 500,
  random: Math.random,
};

/** Runs `cycle` (read, then write against what was read) until it is not refused as a conflict. */
export async function retryOnConflict(
  lock: KeyedLock,
  key: string,
  call: CallContext,
  retry: ConflictRetry,
  cycle: () => Promise<void>,
): Promise<void> {
  await serialised(lock, key, call, async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        await cycle();
        return;
      } catch (error) {
        if (!isConflict(error) || attempt >= retry.attempts) throw error;
      }
      try {
        await delay(backoffMs(retry, attempt, retry.random), undefined, { signal: call.signal });
      } catch {
        throw new ClientGoneError();
      }
    }
  });
}

/**
 * Runs `work` once this process's earlier writes of the key are through. The
 * wait is bounded like an upstream call: a write queued behind others against
 * a hung manager answers UPSTREAM_TIMEOUT after UPSTREAM_TIMEOUT_MS instead
 * of waiting for each of them in turn, and a client that goes away leaves
 * the queue.
 */
export async function serialised(
  lock: KeyedLock,
  key: string,
  call: CallContext,
  work: () => Promise<void>,
): Promise<void> {
  try {
    const left = remainingBudgetMs(call);
    await lock.run(key, work, call.signal, Number.isFinite(left) ? left : undefined);
  } catch (error) {
    if (error instanceof LockWaitTimeoutError)
      throw new UpstreamTimeoutError('nsx', error.waitedMs);
    if (error instanceof LockWaitAbortedError) throw new ClientGoneError();
    throw error;
  }
}
