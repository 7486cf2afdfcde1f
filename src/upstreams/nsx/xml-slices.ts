/**
 * xml.ts's parse and build spread over turns of the event loop: a large
 * document (a firewall configuration runs to megabytes) is handled in slices
 * of a few milliseconds, so that other requests are served in between
 * instead of waiting for the whole document. A small one finishes in its
 * first slice, without a pause.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { buildXmlSteps, parseXmlSteps, type XmlElement } from './xml.ts';

/** The longest the parse or build of one document holds the event loop at a time. */
export const sliceMs = 8;

export function parseXmlInSlices(document: string): Promise<XmlElement> {
  return inSlices(parseXmlSteps(document));
}

export function buildXmlInSlices(
  root: XmlElement,
  options: { declaration?: boolean } = {},
): Promise<string> {
  return inSlices(buildXmlSteps(root, options));
}

async function inSlices<T>(steps: Generator<void, T, void>): Promise<T> {
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
