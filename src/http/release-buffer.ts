/**
 * Frees a buffer's memory now instead of at V8's next full collection. A
 * megabyte buffer that outlives a young-generation collection is otherwise
 * kept until a full one, which V8 starts only after tens of megabytes more
 * (a firewall edit makes several: BENCHMARKS.md, large XML).
 *
 * Only for a buffer the caller made and alone holds, never one handed to
 * I/O: its bytes are gone afterwards (its length is 0). A buffer that shares
 * its memory (a slice, or one of Node's small pooled buffers) is left alone.
 */
export function releaseBuffer(buffer: Buffer): void {
  const memory = buffer.buffer;
  if (
    memory instanceof ArrayBuffer &&
    buffer.byteOffset === 0 &&
    memory.byteLength === buffer.byteLength &&
    !memory.detached
  ) {
    memory.transfer(0);
  }
}
