import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { multipartBody } from '../../src/http/multipart.ts';

const sample = readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url));

/** A file that hands out its bytes in chunks and counts how many were pulled. */
function chunkedFile(bytes: Buffer, chunkSize: number) {
  const state = { pulled: 0 };
  return {
    state,
    file: {
      size: bytes.length,
      async *stream(): AsyncGenerator<Uint8Array> {
        for (let at = 0; at < bytes.length; at += chunkSize) {
          state.pulled += 1;
          await Promise.resolve();
          yield bytes.subarray(at, at + chunkSize);
        }
      },
    },
  };
}

async function readAll(body: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('the streamed package upload body', () => {
  it('is a multipart body with the file in the part named file, byte for byte', async () => {
    const { file } = chunkedFile(sample, 4096);
    const multipart = multipartBody([
      { name: 'file', filename: 'net.powervro.tests.package', file },
    ]);
    const boundary = /boundary=(.+)$/.exec(multipart.contentType)?.[1] ?? '';
    const body = await readAll(multipart.body);
    expect(body.length).toBe(multipart.contentLength);
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="net.powervro.tests.package"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n';
    expect(body.subarray(0, head.length).toString()).toBe(head);
    expect(body.subarray(head.length, head.length + sample.length).equals(sample)).toBe(true);
    expect(body.subarray(head.length + sample.length).toString()).toBe(`\r\n--${boundary}--\r\n`);
  });

  it('pulls the file as the body is read, never all of it ahead of the reader', async () => {
    const chunks = Math.ceil(sample.length / 256);
    const { file, state } = chunkedFile(sample, 256);
    const multipart = multipartBody([{ name: 'file', filename: 'a.package', file }]);
    const reader = multipart.body[Symbol.asyncIterator]();
    await reader.next();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(state.pulled).toBeGreaterThan(0);
    expect(state.pulled).toBeLessThan(chunks);
    await reader.return?.();
  });

  it('escapes quotes and line breaks in the file name', async () => {
    const { file } = chunkedFile(Buffer.from('x'), 1);
    const multipart = multipartBody([{ name: 'file', filename: 'a"b\r\n.package', file }]);
    expect((await readAll(multipart.body)).toString()).toContain('filename="a%22b%0D%0A.package"');
  });
});
