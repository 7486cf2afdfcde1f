/**
 * A young-generation collection, run after an upstream call that moved
 * megabytes. V8 frees a dead Buffer's memory only when it collects the
 * Buffer object. The socket's 64 KiB reads of a 5 MB answer, and the copies
 * of a 5 MB body sent, are dead as soon as they are copied or written. But
 * at V8's defaults the young generation holds up to 64 MB, so the next
 * young collection may be many megabytes of allocation away, and the dead
 * buffers count in resident memory meanwhile (a firewall edit moved three
 * times its configuration's size: BENCHMARKS.md, large XML). One young
 * collection costs a millisecond or two when little is live, once per call
 * of that size at the most.
 *
 * V8's `gc` is there when the process starts with `--expose-gc`, as
 * `npm start` and the Dockerfile start it; without it nothing is collected
 * here. Not set at run time with `v8.setFlagsFromString`: a flag changed
 * after start-up cost a quarter to a third more CPU per operation in later
 * request (BENCHMARKS.md, large XML).
 */

/** Bytes moved by one call (sent and received) from which a collection follows it. */
export const collectAfterBytes = 1024 * 1024;

type Collect = (options: { type: 'minor' }) => void;

const exposed: unknown = (globalThis as { gc?: unknown }).gc;
const collect = typeof exposed === 'function' ? (exposed as Collect) : undefined;

/** True when the process was started with `--expose-gc`. */
export const collectsYoungGeneration = collect !== undefined;

/** Collects the young generation when `bytes` (moved by one call) reach `collectAfterBytes`. */
export function collectAfterLargeCall(bytes: number): void {
  if (bytes >= collectAfterBytes) collect?.({ type: 'minor' });
}
