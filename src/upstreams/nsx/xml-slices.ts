/**
 * xml.ts's parse and build spread over turns of the event loop: a large
 * document (a firewall configuration runs to megabytes) is handled in slices
 * of a few milliseconds, so that other requests are served in between
 * instead of waiting for the whole document. A small one finishes in its
 * first slice, without a pause.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { releaseBuffer } from '../../http/release-buffer.ts';
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
  document: string,
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
  const parts: Buffer[] = [];
  let until = performance.now() + sliceMs;
  for (const chunk of buildXmlChunks(root, options)) {
    parts.push(Buffer.from(chunk));
    if (performance.now() >= until) {
      await nextTurn();
      until = performance.now() + sliceMs;
    }
  }
  if (parts.length === 1) return parts[0] as Buffer;
  const bytes = Buffer.concat(parts);
  for (const part of parts) releaseBuffer(part);
  return bytes;
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
