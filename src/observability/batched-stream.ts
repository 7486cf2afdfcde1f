import type { DestinationStream } from 'pino';

/** What the batch is handed to: pino's SonicBoom destination. */
interface Target {
  write(text: string): boolean;
  flush(callback: (error?: Error) => void): void;
  flushSync(): void;
}

/** A stream that gathers lines and writes them when it has this many characters. */
const maxBatchChars = 64 * 1024;

/** Streams holding lines not yet handed on: written out at exit, whatever the exit. */
const holding = new Set<BatchedStream>();
let exitHookInstalled = false;

/** Writes out every line still held, synchronously (the process's `exit` event calls it). */
export function flushHeldLines(): void {
  for (const stream of holding) {
    try {
      stream.flushSync();
    } catch {
      // the destination is closed or broken: nothing can be written, and the exit goes on
    }
  }
}

function handOverAtExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', flushHeldLines);
}

/**
 * Lines gathered and handed to the target in one write at most `delayMs`
 * after the first of them (0: at the end of the current turn of the event
 * loop), sooner past 64 KiB: an asynchronous write costs a system call, a
 * thread-pool job and its completion, whatever its size. `flush` and
 * `flushSync` write everything held (pino's `logger.flush`, as main.ts calls
 * before exiting), and so does the process's `exit` event.
 */
export class BatchedStream implements DestinationStream {
  readonly #target: Target;
  readonly #delayMs: number;
  #held = '';
  #scheduled = false;
  readonly #handOver = (): void => {
    this.#scheduled = false;
    this.#writeHeld();
  };

  constructor(target: Target, delayMs = 0) {
    this.#target = target;
    this.#delayMs = delayMs;
    handOverAtExit();
  }

  write(line: string): boolean {
    if (this.#held === '') holding.add(this);
    this.#held += line;
    if (this.#held.length >= maxBatchChars) this.#writeHeld();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      if (this.#delayMs === 0) setImmediate(this.#handOver);
      else setTimeout(this.#handOver, this.#delayMs).unref();
    }
    return true;
  }

  flush(callback: (error?: Error) => void): void {
    this.#writeHeld();
    this.#target.flush(callback);
  }

  flushSync(): void {
    this.#writeHeld();
    this.#target.flushSync();
  }

  #writeHeld(): void {
    if (this.#held === '') return;
    const text = this.#held;
    this.#held = '';
    holding.delete(this);
    this.#target.write(text);
  }
}
