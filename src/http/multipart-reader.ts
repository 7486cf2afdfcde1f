/** One part of a `multipart/form-data` body as it arrives: its headers, then its bytes. */
export interface PartHead {
  name: string;
  /** Set for a file part. */
  filename: string | undefined;
  contentType: string | undefined;
}

export class MultipartSyntaxError extends Error {
  override name = 'MultipartSyntaxError';
}

/** The boundary of a `multipart/form-data` content type, or undefined. */
export function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

const maxHeadBytes = 16 * 1024;

function parseHead(text: string): PartHead {
  let name: string | undefined;
  let filename: string | undefined;
  let contentType: string | undefined;
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === 'content-disposition') {
      name = /;\s*name="([^"]*)"/i.exec(value)?.[1];
      filename = /;\s*filename="([^"]*)"/i.exec(value)?.[1];
    } else if (field === 'content-type') contentType = value;
  }
  if (name === undefined) throw new MultipartSyntaxError('A part has no name.');
  return { name, filename, contentType };
}

/**
 * Reads a `multipart/form-data` body chunk by chunk, never holding more than
 * a chunk and a boundary of it: each part's head is handed to `open`, which
 * answers where the part's bytes go (`write` is awaited, so a slow sink
 * slows the reading, and `end` closes the part). `open` may answer `stop`:
 * the rest of the body is then not read.
 */
export async function readMultipart(
  chunks: AsyncIterable<Uint8Array>,
  boundary: string,
  open: (head: PartHead) => Promise<PartSink | 'stop'>,
): Promise<'done' | 'stopped'> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first delimiter has no line break before it: one is put there.
  let buffer: Buffer = Buffer.from('\r\n');
  let state: 'preamble' | 'after-delimiter' | 'head' | 'body' | 'end' = 'preamble';
  let sink: PartSink | undefined;
  for await (const chunk of chunks) {
    buffer = buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([buffer, chunk]);
    for (;;) {
      if (state === 'preamble') {
        const at = buffer.indexOf(delimiter);
        if (at < 0) {
          if (buffer.length > maxHeadBytes) throw new MultipartSyntaxError('No boundary found.');
          break;
        }
        buffer = buffer.subarray(at + delimiter.length);
        state = 'after-delimiter';
      } else if (state === 'after-delimiter') {
        if (buffer.length < 2) break;
        const next = buffer.subarray(0, 2).toString('latin1');
        if (next === '--') {
          state = 'end';
          break;
        }
        if (next !== '\r\n')
          throw new MultipartSyntaxError('A boundary is not followed by a line break.');
        buffer = buffer.subarray(2);
        state = 'head';
      } else if (state === 'head') {
        const at = buffer.indexOf('\r\n\r\n');
        if (at < 0) {
          if (buffer.length > maxHeadBytes)
            throw new MultipartSyntaxError('A part head is too long.');
          break;
        }
        const opened = await open(parseHead(buffer.subarray(0, at).toString('utf8')));
        if (opened === 'stop') return 'stopped';
        sink = opened;
        buffer = buffer.subarray(at + 4);
        state = 'body';
      } else {
        const at = buffer.indexOf(delimiter);
        const usable = at >= 0 ? at : Math.max(0, buffer.length - delimiter.length + 1);
        if (usable > 0) await sink?.write(buffer.subarray(0, usable));
        if (at < 0) {
          buffer = Buffer.from(buffer.subarray(usable));
          break;
        }
        await sink?.end();
        sink = undefined;
        buffer = buffer.subarray(at + delimiter.length);
        state = 'after-delimiter';
      }
    }
    if (state === 'end') break;
  }
  if (state !== 'end') throw new MultipartSyntaxError('The body ended before its last boundary.');
  return 'done';
}

export interface PartSink {
  write(bytes: Uint8Array): Promise<void>;
  end(): Promise<void>;
}
