import { ClientGoneError } from '../http/upstream-http.ts';

/** The signal of a read shared by several requests: no single client's disconnect aborts it. */
export const detached: AbortSignal = new AbortController().signal;

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
