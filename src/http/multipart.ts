import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

/**
 * What a file part needs: its size and a stream of its bytes. A web File
 * from yoga (a @whatwg-node ponyfill, not a Node Blob, so undici's FormData
 * refuses it) and a Node File both fit.
 */
export interface StreamableFile {
  readonly size: number;
  stream(): AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;
}

interface MultipartFilePart {
  name: string;
  filename: string;
  contentType?: string;
  file: StreamableFile;
}

interface MultipartBody {
  /** The parts as they are read: a file part's bytes are never gathered into one buffer. */
  body: Readable;
  /** `multipart/form-data; boundary=...` */
  contentType: string;
  contentLength: number;
}

/** A `multipart/form-data` body (RFC 7578) that streams each file part from its source. */
export function multipartBody(parts: readonly MultipartFilePart[]): MultipartBody {
  const boundary = `----GatewayBoundary${randomBytes(16).toString('hex')}`;
  const heads = parts.map((part) =>
    Buffer.from(
      `--${boundary}\r\n` +
        `Content-Disposition: form-data; name="${escapeQuoted(part.name)}"; filename="${escapeQuoted(part.filename)}"\r\n` +
        `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`,
    ),
  );
  const tail = Buffer.from(`--${boundary}--\r\n`);
  const contentLength =
    heads.reduce((sum, head) => sum + head.length + 2, tail.length) +
    parts.reduce((sum, part) => sum + part.file.size, 0);
  async function* generate(): AsyncGenerator<Uint8Array> {
    for (const [index, part] of parts.entries()) {
      yield heads[index] ?? Buffer.alloc(0);
      yield* part.file.stream() as AsyncIterable<Uint8Array>;
      yield Buffer.from('\r\n');
    }
    yield tail;
  }
  return {
    body: Readable.from(generate(), { objectMode: false }),
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength,
  };
}

/** As browsers and undici do: `"` and line breaks percent-encoded inside a quoted value. */
function escapeQuoted(value: string): string {
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
