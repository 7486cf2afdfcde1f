/**
 * vRA's typed literals (`resourceData.entries[]`, `requestData.entries[]`)
 * as plain JSON: `{key, value:{type:"integer", value:2}}` becomes `key: 2`,
 * a `complex` its own object of entries, a `multiple` an array of its items.
 * A literal of any other shape (`timeSpan`, `entityRef`, ...) keeps its
 * fields without `type`.
 */

import { isObject } from './decode.ts';

type Json = Record<string, unknown>;

/** Nesting deeper than this is cut (a hostile answer must not exhaust the stack). */
const maxDepth = 64;

export function plainEntries(entries: unknown, depth = 0): Json {
  const out: Json = {};
  if (!Array.isArray(entries)) return out;
  for (const entry of entries) {
    if (!isObject(entry) || typeof entry['key'] !== 'string') continue;
    const key = entry['key'];
    // Own-property writes only: a key such as "__proto__" stays plain data.
    Object.defineProperty(out, key, {
      value: plainLiteral(entry['value'], depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

export function plainLiteral(literal: unknown, depth = 0): unknown {
  if (!isObject(literal) || depth > maxDepth) return literal ?? null;
  const type = literal['type'];
  if (type === 'complex') {
    const values = literal['values'];
    return plainEntries(isObject(values) ? values['entries'] : undefined, depth + 1);
  }
  if (type === 'multiple') {
    const items = literal['items'];
    return Array.isArray(items) ? items.map((item) => plainLiteral(item, depth + 1)) : [];
  }
  if ('value' in literal) return literal['value'] ?? null;
  const rest: Json = {};
  for (const [key, value] of Object.entries(literal)) {
    if (key !== 'type') rest[key] = value;
  }
  return rest;
}
