/** Helpers for the NSX tests: what the simulator received, read with the simulator's own XML reader. */
import type { NsxSimulator } from '../../simulators/nsx/v/index.ts';
import type { RuleDraft } from '../../src/upstreams/nsx/drafts.ts';
import { readXml, writeXml, type SimElement } from '../../simulators/nsx/v/sim-xml.ts';
import type { RecordedRequest } from '../../simulators/sim-server.ts';

/** An XML bomb: entities that expand to a billion "lol"s (the parser must refuse it unexpanded). */
export const billionLaughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol9 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<list><ipset><name>&lol9;</name></ipset></list>`;

export type Plain = string | { [key: string]: Plain | Plain[] };

/** An element as plain data: text-only elements are strings, attributes "@name", repeats arrays. */
export function plain(node: SimElement): Plain {
  const elements = node.kids.filter((k): k is SimElement => typeof k !== 'string');
  const text = node.kids.filter((k): k is string => typeof k === 'string').join('');
  if (elements.length === 0 && node.attrs.length === 0) return text;
  const out: Record<string, Plain | Plain[]> = {};
  for (const [name, value] of node.attrs) out[`@${name}`] = value;
  for (const child of elements) {
    const value = plain(child);
    const seen = out[child.tag];
    if (seen === undefined) out[child.tag] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[child.tag] = [seen, value];
  }
  if (elements.length > 0 ? text.trim() !== '' : text !== '') out['#text'] = text;
  return out;
}

/** The request body as `{ <root>: plain }`. */
export function bodyOf(request: RecordedRequest | undefined): Record<string, Plain> {
  if (request === undefined) throw new Error('no such request');
  const root = readXml(request.body.toString('utf8'));
  return { [root.tag]: plain(root) };
}

/** `METHOD /raw/path?query` of every request the simulator received. */
export function calls(sim: NsxSimulator): string[] {
  return sim.requests.map((r) => {
    const query = r.query.toString();
    return `${r.method} ${r.rawPath}${query === '' ? '' : `?${query}`}`;
  });
}

export function basic(sim: NsxSimulator): string {
  return `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`;
}

/** The stored rules of a context by id, each as the simulator writes it (exact, for before/after comparisons). */
export function storedRules(sim: NsxSimulator, contextId: string): Map<string, string> {
  const firewall = sim.state.firewalls.find((f) => f.contextId === contextId);
  if (firewall === undefined) throw new Error(`no context ${contextId}`);
  const rules = new Map<string, string>();
  for (const node of firewall.configuration.kids) {
    if (typeof node === 'string') continue;
    const id = node.attrs.find(([n]) => n === 'id')?.[1] ?? '';
    rules.set(id, writeXml(node));
  }
  return rules;
}

/** A new layer-3 rule as an input makes it: `deny`, with `notes`, every other field default. */
export function newRuleDraft(notes: string, precedence: string | null = 'default'): RuleDraft {
  return {
    id: undefined,
    layer: 'LAYER3',
    action: 'deny',
    disabled: false,
    logged: false,
    precedence,
    notes,
    source: undefined,
    destination: undefined,
    service: undefined,
  };
}
