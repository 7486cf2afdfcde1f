import { open, type FileHandle } from 'node:fs/promises';

export type AuditTarget = 'stdout' | { file: string };

export interface AuditActor {
  name: string;
  via: 'session' | 'jwt' | 'token' | 'anonymous';
}

export interface AuditUpstreamCall {
  service: 'vro' | 'vra' | 'nsx';
  method: string;
  route: string;
  status: number | null;
}

export interface AuditEvent {
  time: string; // ISO-8601
  requestId: string;
  actor: AuditActor;
  clientAddress: string | null;
  operationName: string | null;
  field: string;
  arguments: Record<string, unknown>;
  decision: 'allowed' | 'denied';
  outcome: string; // 'ok' or an error code
  upstream: AuditUpstreamCall[];
  generation?: { before: string | null; after: string | null };
}

/** The event could not be written to the audit log. */
export class AuditUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AuditUnavailableError';
  }
}

/**
 * Where audit events go: one JSON line per event, to stdout or appended to a
 * file. Writes are serialized so lines never interleave or reorder. A failed
 * open or write marks the log unavailable and closes the file; the next
 * ready()/write() opens it again.
 */
export class AuditLog {
  readonly #target: AuditTarget;
  readonly #stdout: NodeJS.WritableStream;
  readonly #onStdoutError = (): void => {
    this.#available = false;
  };
  #handle: FileHandle | undefined;
  #available = true;
  #closed = false;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(target: AuditTarget, options?: { stdout?: NodeJS.WritableStream }) {
    this.#target = target;
    this.#stdout = options?.stdout ?? process.stdout;
    if (target === 'stdout') this.#stdout.on('error', this.#onStdoutError);
  }

  /** False after a failed open or write, until a write succeeds again. */
  get available(): boolean {
    return this.#available;
  }

  /** Writes one line; resolves once the bytes were handed to the OS. */
  write(event: AuditEvent): Promise<void> {
    let line: string;
    try {
      line = serialize(event);
    } catch (error) {
      // The event itself cannot be written (a bigint, a cycle): the log stays as it was.
      return Promise.reject(
        new AuditUnavailableError('The audit event cannot be serialized.', { cause: error }),
      );
    }
    return this.#enqueue(async () => {
      if (this.#closed) throw new AuditUnavailableError('The audit log is closed.');
      try {
        if (this.#target === 'stdout') await this.#writeStdout(line);
        else await this.#writeFile(this.#target.file, line);
      } catch (error) {
        this.#available = false;
        await this.#closeHandle();
        throw new AuditUnavailableError('The audit log cannot be written.', { cause: error });
      }
      this.#available = true;
    });
  }

  /** True when the log can be written right now: available, or (for a file) it could be re-opened. */
  ready(): Promise<boolean> {
    return this.#enqueue(async () => {
      if (this.#closed) return false;
      if (this.#target === 'stdout') return this.#available;
      try {
        await this.#openFile(this.#target.file);
        return true;
      } catch {
        this.#available = false;
        return false;
      }
    });
  }

  close(): Promise<void> {
    return this.#enqueue(async () => {
      if (this.#closed) return;
      this.#closed = true;
      if (this.#target === 'stdout') this.#stdout.off('error', this.#onStdoutError);
      await this.#closeHandle();
    });
  }

  #enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(operation);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #openFile(path: string): Promise<FileHandle> {
    this.#handle ??= await open(path, 'a', 0o600);
    return this.#handle;
  }

  async #writeFile(path: string, line: string): Promise<void> {
    const handle = await this.#openFile(path);
    const bytes = Buffer.from(line);
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, written);
      written += bytesWritten;
    }
  }

  #writeStdout(line: string): Promise<void> {
    return new Promise((resolve, reject) => {
      try {
        this.#stdout.write(line, (error?: Error | null) => {
          if (error) reject(error);
          else resolve();
        });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  async #closeHandle(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close().catch(() => undefined);
  }
}

function serialize(event: AuditEvent): string {
  const { generation, ...rest } = event;
  // JSON.stringify escapes newlines, so one event is always one line.
  return `${JSON.stringify(generation == null ? rest : event)}\n`;
}
