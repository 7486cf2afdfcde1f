import { describe, expect, it } from 'vitest';
import { boundaryOf, readMultipart, type PartHead } from '../../src/http/multipart-reader.ts';

async function encoded(): Promise<{ body: Buffer; boundary: string; file: Buffer }> {
  const file = Buffer.alloc(70_000);
  for (let i = 0; i < file.length; i += 1) file[i] = (i * 31) % 256;
  // Bytes that look like the start of a boundary inside the file.
  file.write('\r\n--\r\n-', 1000, 'latin1');
  const form = new FormData();
  form.append('operations', '{"query":"mutation { x }"}');
  form.append('map', '{"0":["variables.f"]}');
  form.append('0', new File([new Uint8Array(file)], 'a.package'));
  const response = new Response(form);
  const boundary = boundaryOf(response.headers.get('content-type') ?? '') ?? '';
  return { body: Buffer.from(await response.arrayBuffer()), boundary, file };
}

async function* inPieces(body: Buffer, size: (at: number) => number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < body.length;) {
    const next = Math.min(body.length, at + Math.max(1, size(at)));
    yield await Promise.resolve(body.subarray(at, next));
    at = next;
  }
}

describe('readMultipart', () => {
  it.each([
    ['one chunk', () => 1 << 30],
    ['single bytes', () => 1],
    ['7-byte pieces', () => 7],
    ['uneven pieces', (at: number) => ((at * 7919) % 997) + 1],
  ])('gives each part its exact bytes whatever the chunking (%s)', async (_what, size) => {
    const { body, boundary, file } = await encoded();
    const parts: Array<{ head: PartHead; bytes: Buffer }> = [];
    const outcome = await readMultipart(inPieces(body, size), boundary, (head) => {
      const chunks: Buffer[] = [];
      return Promise.resolve({
        write: (bytes: Uint8Array) => {
          chunks.push(Buffer.from(bytes));
          return Promise.resolve();
        },
        end: () => {
          parts.push({ head, bytes: Buffer.concat(chunks) });
          return Promise.resolve();
        },
      });
    });
    expect(outcome).toBe('done');
    expect(parts.map((p) => p.head.name)).toEqual(['operations', 'map', '0']);
    expect(parts[0]?.bytes.toString()).toBe('{"query":"mutation { x }"}');
    expect(parts[2]?.head.filename).toBe('a.package');
    expect(parts[2]?.bytes.equals(file)).toBe(true);
  });

  it('stops reading when a part is refused', async () => {
    const { body, boundary } = await encoded();
    let read = 0;
    async function* counted(): AsyncGenerator<Uint8Array> {
      for await (const piece of inPieces(body, () => 1000)) {
        read += piece.length;
        yield piece;
      }
    }
    const none = { write: () => Promise.resolve(), end: () => Promise.resolve() };
    const outcome = await readMultipart(counted(), boundary, (head) =>
      Promise.resolve(head.filename === undefined ? none : ('stop' as const)),
    );
    expect(outcome).toBe('stopped');
    expect(read).toBeLessThan(2000);
  });

  it('refuses a body that ends before its last boundary', async () => {
    const { body, boundary } = await encoded();
    const none = { write: () => Promise.resolve(), end: () => Promise.resolve() };
    await expect(
      readMultipart(
        inPieces(body.subarray(0, body.length - 10), () => 4096),
        boundary,
        () => Promise.resolve(none),
      ),
    ).rejects.toThrow(/ended before/);
  });
});
