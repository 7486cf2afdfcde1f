/**
 * A young-generation collection, run after an upstream call that moved
 * megabytes. V8 frees a dead Buffer's memory only when it collects the
 * Buffer object. The socket's 64 KiB reads of a 5 MB answer, and the copies
 * of a 5 MB body sent, are dead as soon as they are copied or written. But
 * at V8's defaults the young generation holds up to 64 MB, so the next
 * young collection may be many megabytes of allocation away, and the dead
 * buffers count in resident memory meanwhile (a firewall edit moved three
 * times its configuration's size: BENCHMARKS.md, large XML). One young
 * collection costs about a millisecond when little is live, once per call of
 * that size at the most.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Bytes moved by one call (sent and received) from which a collection follows it. */
export const collectAfterBytes = 1024 * 1024;

type Collect = (options: { type: 'minor' }) => void;

/**
 * V8's `gc` function, taken from a context made while `--expose-gc` is set
 * (the main context, and any made afterwards, do not get it); undefined if
 * V8 refuses.
 */
const collect: Collect | undefined = (() => {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as Collect) : undefined;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
})();

/** Collects the young generation when `bytes` (moved by one call) reach `collectAfterBytes`. */
export function collectAfterLargeCall(bytes: number): void {
  if (bytes >= collectAfterBytes) collect?.({ type: 'minor' });
}
