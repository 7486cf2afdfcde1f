import { UpstreamBadResponseError } from '../../errors.ts';
import { jsonLimits } from '../../json-bounds.ts';

/**
 * A vRO typed value as plain JSON: `{"number":{"value":326.0}}` is 326,
 * `{"array":{"elements":[...]}}` an array, `{"properties":{"property":[{key,value}]}}`
 * an object, `{"sdk-object":{type,id}}` `{ type, id }`, a date an ISO string.
 * A wrapper the gateway does not know is kept as vRO sent it. Walked without
 * recursion; arrays and objects nested deeper than the JSON bounds are
 * UPSTREAM_BAD_RESPONSE.
 */
export function unwrapValue(wrapped: unknown): unknown {
  const root: { value: unknown } = { value: null };
  const pending: Array<{ wrapped: unknown; depth: number; into: object; key: string | number }> = [
    { wrapped, depth: 0, into: root, key: 'value' },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { depth, into, key } = next;
    const shallow = unwrapOne(next.wrapped);
    let value: unknown = shallow;
    if (shallow instanceof Nested) {
      if (depth >= jsonLimits.maxDepth) {
        throw new UpstreamBadResponseError(
          'vro',
          `a JSON value nested deeper than ${jsonLimits.maxDepth} levels`,
        );
      }
      value = shallow.container;
      // Pushed last to first, so that they are taken in order: a repeated key keeps its last value.
      for (let i = shallow.children.length - 1; i >= 0; i -= 1) {
        const [childKey, child] = shallow.children[i] as [string | number, unknown];
        pending.push({ wrapped: child, depth: depth + 1, into: value as object, key: childKey });
      }
    }
    // defineProperty: a key such as `__proto__` is an own property, as Object.fromEntries makes it.
    Object.defineProperty(into, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return root.value;
}

/** An array or object whose members are still wrapped. */
class Nested {
  readonly container: unknown[] | Record<string, unknown>;
  readonly children: Array<[string | number, unknown]>;
  constructor(
    container: unknown[] | Record<string, unknown>,
    children: Array<[string | number, unknown]>,
  ) {
    this.container = container;
    this.children = children;
  }
}

/** One wrapper: a plain value, or a Nested container to fill. */
function unwrapOne(wrapped: unknown): unknown {
  if (!isObject(wrapped)) return wrapped ?? null;
  const [kind] = Object.keys(wrapped);
  if (kind === undefined) return null;
  const inner = wrapped[kind];
  switch (kind) {
    case 'string':
    case 'secure-string':
    case 'encrypted-string':
    case 'boolean':
      return isObject(inner) ? (inner['value'] ?? null) : null;
    case 'number':
      return isObject(inner) ? toNumber(inner['value']) : null;
    case 'date':
      return isObject(inner) ? (toIsoDate(inner['value']) ?? inner['value'] ?? null) : null;
    case 'array': {
      const elements = isObject(inner) ? inner['elements'] : undefined;
      if (!Array.isArray(elements)) return [];
      return new Nested(
        new Array<unknown>(elements.length).fill(null),
        elements.map((element: unknown, i) => [i, element]),
      );
    }
    case 'properties': {
      const property = isObject(inner) ? inner['property'] : undefined;
      if (!Array.isArray(property)) return {};
      const entries = property
        .filter(isObject)
        .filter((entry) => typeof entry['key'] === 'string')
        .map((entry): [string, unknown] => [entry['key'] as string, entry['value']]);
      return new Nested({}, entries);
    }
    case 'sdk-object':
      return isObject(inner) ? { type: inner['type'] ?? null, id: inner['id'] ?? null } : null;
    default:
      return inner ?? null;
  }
}

/** Numbers arrive as doubles (`326.0`); JSON.parse already reads them, some versions quote them. */
function toNumber(value: unknown): unknown {
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : value;
  }
  return value ?? null;
}

/** Epoch milliseconds (7.x) or an ISO string: an ISO string in UTC either way. */
export function toIsoDate(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'number') {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? null : date.toISOString();
  }
  if (typeof value === 'string') {
    const date = /^-?\d+$/.test(value) ? new Date(Number(value)) : new Date(value);
    return Number.isNaN(date.getTime()) ? null : date.toISOString();
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
