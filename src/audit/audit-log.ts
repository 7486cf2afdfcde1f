import { open, stat, type FileHandle } from 'node:fs/promises';

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

interface AuditEventBase {
  time: string; // ISO-8601
  requestId: string;
  actor: AuditActor;
  clientAddress: string | null;
  operationName: string | null;
  field: string;
  arguments: Record<string, unknown>;
}

/** A mutation field about to run: its decision is made, no upstream call is sent yet. */
export interface AuditStartedEvent extends AuditEventBase {
  stage: 'started';
  decision: 'allowed';
  outcome?: never;
  upstream?: never;
  generation?: never;
}

/** A field that ran (or was refused): what came of it and what it sent upstream. */
export interface AuditCompletedEvent extends AuditEventBase {
  stage: 'completed';
  decision: 'allowed' | 'denied';
  outcome: string; // 'ok' or an error code
  upstream: AuditUpstreamCall[];
  generation?: { before: string | null; after: string | null };
}

export type AuditEvent = AuditStartedEvent | AuditCompletedEvent;

/** The event could not be written to the audit log. */
export class AuditUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AuditUnavailableError';
  }
}

/**
 * Where audit events go: one JSON line per event, to stdout or appended to a
 * file. Writes are serialized so lines never interleave or reorder; a write
 * resolves once the OS took the bytes (the write call returned), never when
 * merely queued. A failed write closes the file: the next write opens it
 * again. Before each write the file's path is looked up again: once it names
 * another file or none (rotated, removed), the next line goes to a new file
 * at that path.
 */
export class AuditLog {
  readonly #target: AuditTarget;
  readonly #stdout: NodeJS.WritableStream;
  readonly #onStdoutError = (): void => {
    this.#available = false;
  };
  #file: { handle: FileHandle; dev: number; ino: number } | undefined;
  #available = true;
  /** A write failed and none has succeeded since: the log takes no line, whether or not it opens. */
  #writeFailed = false;
  /** The file a failed write left part of a line in: its next line starts on a line of its own. */
  #torn: { dev: number; ino: number } | undefined;
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

  /** Writes one line; resolves once the bytes were handed to the OS, rejects with AuditUnavailableError. */
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
        await this.#closeFile();
        throw new AuditUnavailableError('The audit log cannot be written.', { cause: error });
      }
      this.#available = true;
      this.#writeFailed = false;
    });
  }

  /**
   * True when the log should take a line right now, as far as can be told
   * without writing one: stdout, when available; a file, when it opens and
   * no write failed since the last that succeeded.
   */
  ready(): Promise<boolean> {
    return this.#enqueue(async () => {
      if (this.#closed) return false;
      if (this.#target === 'stdout') return this.#available;
      try {
        await this.#openFile(this.#target.file);
      } catch {
        this.#available = false;
        return false;
      }
      return !this.#writeFailed;
    });
  }

  close(): Promise<void> {
    return this.#enqueue(async () => {
      if (this.#closed) return;
      this.#closed = true;
      if (this.#target === 'stdout') this.#stdout.off('error', this.#onStdoutError);
      await this.#closeFile();
    });
  }

  #enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(operation);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** The open file, if the path still names it; else the file now at the path (rotated: a new one). */
  async #openFile(path: string): Promise<FileHandle> {
    if (this.#file !== undefined && !(await this.#stillAt(path, this.#file))) {
      await this.#closeFile();
    }
    if (this.#file === undefined) {
      const handle = await open(path, 'a', 0o600);
      try {
        const { dev, ino } = await handle.stat();
        this.#file = { handle, dev, ino };
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
    }
    return this.#file.handle;
  }

  async #stillAt(path: string, file: { dev: number; ino: number }): Promise<boolean> {
    try {
      const now = await stat(path);
      return now.dev === file.dev && now.ino === file.ino;
    } catch {
      return false;
    }
  }

  async #writeFile(path: string, line: string): Promise<void> {
    const handle = await this.#openFile(path);
    const file = this.#file;
    const torn = file !== undefined && file.dev === this.#torn?.dev && file.ino === this.#torn.ino;
    const bytes = Buffer.from(torn ? `\n${line}` : line);
    let written = 0;
    try {
      while (written < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, written);
        written += bytesWritten;
      }
    } catch (error) {
      this.#writeFailed = true;
      if (written > 0 && file !== undefined) this.#torn = { dev: file.dev, ino: file.ino };
      throw error;
    }
    this.#torn = undefined;
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

  async #closeFile(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    await file?.handle.close().catch(() => undefined);
  }
}

function serialize(event: AuditEvent): string {
  const { generation, ...rest } = event;
  // JSON.stringify escapes newlines, so one event is always one line.
  return `${JSON.stringify(generation == null ? rest : event)}\n`;
}
