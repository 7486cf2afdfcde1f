import { isElement, type XmlElement } from '../../src/upstreams/nsx/xml/xml.ts';

/** Every element and attribute in document order, as `path[@attr=value]` lines. */
export function outline(node: XmlElement, path = ''): string[] {
  const here = `${path}/${node.name}`;
  const attributes = Object.entries(node.attributes).map(([n, v]) => `${here}@${n}=${v}`);
  const children = node.children.flatMap((child) =>
    isElement(child) ? outline(child, here) : [`${here}#${child.text}`],
  );
  return [here, ...attributes, ...children];
}

/** Runs `work` while counting the turns of the event loop that other callbacks got meanwhile. */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work();
  running = false;
  return { value, turns };
}
