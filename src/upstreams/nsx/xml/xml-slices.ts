/**
 * xml.ts's parse and build spread over turns of the event loop: a large
 * document (a firewall configuration runs to megabytes) is handled in slices
 * of a few milliseconds, so that other requests are served in between
 * instead of waiting for the whole document. A small one finishes in its
 * first slice, without a pause.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { releaseBuffer } from '../../../http/release-buffer.ts';
import {
  buildXmlChunks,
  buildXmlSteps,
  parseXmlSteps,
  type ParseOptions,
  type XmlElement,
} from './xml.ts';

/** The longest the parse or build of one document holds the event loop at a time. */
export const sliceMs = 8;

export function parseXmlInSlices(
  document: string | Uint8Array,
  options: ParseOptions = {},
): Promise<XmlElement> {
  return inSlices(parseXmlSteps(document, options));
}

export function buildXmlInSlices(
  root: XmlElement,
  options: { declaration?: boolean } = {},
): Promise<string> {
  return inSlices(buildXmlSteps(root, options));
}

/**
 * `buildXmlInSlices` as UTF-8 bytes, each slice's text encoded as soon as it
 * is made: a large document is never one string on V8's heap (where a
 * megabyte string that outlives a request grows the young generation).
 */
export async function buildXmlBytesInSlices(
  root: XmlElement,
  options: { declaration?: boolean } = {},
): Promise<Buffer> {
  const { parts, made } = await buildXmlPartsInSlices(root, options);
  const only = parts.length === 1 ? made[0] : undefined;
  if (only !== undefined) return only;
  const bytes = Buffer.concat(parts);
  for (const part of made) releaseBuffer(part);
  return bytes;
}

/**
 * `buildXmlBytesInSlices` as the document's bytes in order, not joined: an
 * untouched element of a document read as bytes, or a run of them
 * (xml-splice.ts), is a view of those bytes (`made`: the parts written
 * here). `length`: their total.
 */
export async function buildXmlPartsInSlices(
  root: XmlElement,
  options: { declaration?: boolean } = {},
): Promise<{ parts: Uint8Array[]; made: Buffer[]; length: number }> {
  const parts: Uint8Array[] = [];
  const made: Buffer[] = [];
  let length = 0;
  let until = performance.now() + sliceMs;
  for (const chunk of buildXmlChunks(root, options)) {
    if (typeof chunk === 'string') {
      const part = Buffer.from(chunk);
      made.push(part);
      parts.push(part);
    } else {
      parts.push(chunk);
    }
    length += parts.at(-1)?.length ?? 0;
    if (performance.now() >= until) {
      await nextTurn();
      until = performance.now() + sliceMs;
    }
  }
  return { parts, made, length };
}

/** Bytes of a body sent at a time from `partsCopied`. */
export const copyChunkBytes = 64 * 1024;

/**
 * The parts as copies of up to `copyChunkBytes`, made as the body is sent:
 * what the socket still holds is a copy, so that the document the parts are
 * views of can be freed as soon as the request is over.
 */
export function* partsCopied(parts: readonly Uint8Array[]): Generator<Buffer, void, void> {
  let chunk = Buffer.allocUnsafeSlow(copyChunkBytes);
  let filled = 0;
  for (const part of parts) {
    for (let from = 0; from < part.length;) {
      const n = Math.min(part.length - from, copyChunkBytes - filled);
      chunk.set(part.subarray(from, from + n), filled);
      filled += n;
      from += n;
      if (filled === copyChunkBytes) {
        yield chunk;
        chunk = Buffer.allocUnsafeSlow(copyChunkBytes);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield chunk.subarray(0, filled);
}

/** Runs steps (a generator that yields between pieces of work) to their end, a slice at a time. */
export async function inSlices<T>(steps: Generator<unknown, T, void>): Promise<T> {
  let until = performance.now() + sliceMs;
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (performance.now() >= until) {
      await nextTurn();
      until = performance.now() + sliceMs;
    }
  }
}
