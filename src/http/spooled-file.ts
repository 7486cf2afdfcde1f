import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Readable } from 'node:stream';

/** Bytes of one upload kept in memory; past it the upload goes to a temporary file. */
export const inMemoryUploadBytes = 1024 * 1024;

/**
 * An uploaded file as it is received: in memory up to 1 MiB, in a
 * temporary file (mode 600, in the OS temporary directory) past it, so that
 * parallel uploads cost disk, not memory. `dispose` deletes the file.
 */
export class SpooledFile {
  readonly name: string;
  readonly type: string;
  #size = 0;
  #memory: Buffer[] = [];
  #path: string | undefined;
  #out: WriteStream | undefined;

  constructor(name: string, type: string) {
    this.name = name;
    this.type = type;
  }

  get size(): number {
    return this.#size;
  }

  async write(bytes: Uint8Array): Promise<void> {
    this.#size += bytes.length;
    if (this.#out === undefined && this.#size <= inMemoryUploadBytes) {
      this.#memory.push(Buffer.from(bytes));
      return;
    }
    if (this.#out === undefined) {
      this.#path = join(tmpdir(), `gateway-upload-${randomUUID()}`);
      this.#out = createWriteStream(this.#path, { flags: 'wx', mode: 0o600 });
      for (const kept of this.#memory.splice(0)) this.#out.write(kept);
    }
    if (!this.#out.write(bytes)) await once(this.#out, 'drain');
  }

  async end(): Promise<void> {
    const out = this.#out;
    if (out === undefined) return;
    await new Promise<void>((resolve, reject) => {
      out.once('error', reject);
      out.end(() => resolve());
    });
  }

  stream(): Readable {
    return this.#path === undefined
      ? Readable.from(this.#memory, { objectMode: false })
      : createReadStream(this.#path, { highWaterMark: 64 * 1024 });
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const parts: Buffer[] = [];
    for await (const part of this.stream()) parts.push(part as Buffer);
    const all = Buffer.concat(parts);
    return all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
  }

  async text(): Promise<string> {
    return Buffer.from(await this.arrayBuffer()).toString('utf8');
  }

  async dispose(): Promise<void> {
    this.#memory = [];
    this.#out?.destroy();
    if (this.#path !== undefined) await unlink(this.#path).catch(() => {});
  }
}

/**
 * Stands for a file that was not read: the operation it was sent with is
 * refused before any resolver runs, so nothing ever reads it.
 */
export class UnreadFile {
  readonly size = 0;
  readonly type = '';
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
  stream(): Readable {
    return Readable.from([]);
  }
}
