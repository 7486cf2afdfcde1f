/**
 * A vRO typed value as plain JSON: `{"number":{"value":326.0}}` is 326,
 * `{"array":{"elements":[...]}}` an array, `{"properties":{"property":[{key,value}]}}`
 * an object, `{"sdk-object":{type,id}}` `{ type, id }`, a date an ISO string.
 * A wrapper the gateway does not know is kept as vRO sent it.
 */
export function unwrapValue(wrapped: unknown): unknown {
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
      return Array.isArray(elements) ? elements.map(unwrapValue) : [];
    }
    case 'properties': {
      const property = isObject(inner) ? inner['property'] : undefined;
      if (!Array.isArray(property)) return {};
      const entries = property
        .filter(isObject)
        .filter((entry) => typeof entry['key'] === 'string')
        .map((entry) => [entry['key'] as string, unwrapValue(entry['value'])] as const);
      return Object.fromEntries(entries);
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
