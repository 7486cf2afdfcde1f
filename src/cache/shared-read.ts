import { ClientGoneError, type CallContext } from '../http/upstream-http.ts';

/** The signal of a read shared by several requests: no single client's disconnect aborts it. */
export const detached: AbortSignal = new AbortController().signal;

/**
 * The context of a call made for every request waiting on it (a service
 * account's login, a question asked once): the id and counters of the
 * request that made it, and its credentials, only so that an error repeating
 * them is redacted; not its signal, budget, slots or audit trail.
 */
export function sharedCall(call: CallContext): CallContext {
  return {
    signal: detached,
    requestId: call.requestId,
    ...(call.stats === undefined ? {} : { stats: call.stats }),
    ...(call.credentials === undefined ? {} : { credentials: call.credentials }),
  };
}

/** The shared answer, unless the caller's client goes away first. */
export function untilGone<T>(shared: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new ClientGoneError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new ClientGoneError());
    signal.addEventListener('abort', onAbort, { once: true });
    shared.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
