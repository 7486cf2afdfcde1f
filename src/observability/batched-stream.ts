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
  for (const stream of holding) stream.flushSync();
}

function handOverAtExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', flushHeldLines);
}

/**
 * Lines gathered and handed to the target in one write per turn of the event
 * loop (sooner past 64 KiB): a write per line costs a system call and its
 * completion per request. `flush` and `flushSync` write everything held
 * (pino's `logger.flush`, as main.ts calls before exiting), and so does the
 * process's `exit` event.
 */
export class BatchedStream implements DestinationStream {
  readonly #target: Target;
  #held = '';
  #scheduled = false;
  readonly #handOver = (): void => {
    this.#scheduled = false;
    this.#writeHeld();
  };

  constructor(target: Target) {
    this.#target = target;
    handOverAtExit();
  }

  write(line: string): boolean {
    if (this.#held === '') holding.add(this);
    this.#held += line;
    if (this.#held.length >= maxBatchChars) this.#writeHeld();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#handOver);
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
