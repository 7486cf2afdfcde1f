import { JavaDouble } from './java-json.ts';

/**
 * Typed values on the simulator's side: checking a run request's wrappers
 * against the declared types, reading them, and writing outputs the way vRO
 * does. Written apart from the gateway's encoder on purpose.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isoDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

function only(wrapper: unknown): [string, unknown] | undefined {
  if (!isObject(wrapper)) return undefined;
  const keys = Object.keys(wrapper);
  if (keys.length !== 1 || keys[0] === undefined) return undefined;
  return [keys[0], wrapper[keys[0]]];
}

function isSdkType(type: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_]*:[A-Za-z0-9_.:]+$/.test(type);
}

/** Why `wrapper` is not a value of `type`, or undefined when it is. */
export function wrapperProblem(type: string, wrapper: unknown): string | undefined {
  const entry = only(wrapper);
  if (entry === undefined) return 'the value must be an object with exactly one type key';
  const [key, inner] = entry;
  const lower = type.toLowerCase();
  const expect = (wanted: string, valueOk: (value: unknown) => boolean): string | undefined => {
    if (key !== wanted) return `a ${type} value must be wrapped as "${wanted}", not "${key}"`;
    if (!isObject(inner) || !valueOk(inner['value'])) return `invalid "${wanted}" value`;
    return undefined;
  };
  if (lower.startsWith('array/')) {
    if (key !== 'array') return `a ${type} value must be wrapped as "array", not "${key}"`;
    const elements = isObject(inner) ? inner['elements'] : undefined;
    if (!Array.isArray(elements)) return '"array" needs an "elements" list';
    for (const element of elements) {
      if (element === null) continue;
      const problem = wrapperProblem(type.slice(6), element);
      if (problem !== undefined) return `array element: ${problem}`;
    }
    return undefined;
  }
  switch (lower) {
    case 'string':
      return expect('string', (value) => typeof value === 'string');
    case 'securestring':
      return expect('secure-string', (value) => typeof value === 'string');
    case 'number':
      return expect('number', (value) => typeof value === 'number' && Number.isFinite(value));
    case 'boolean':
      return expect('boolean', (value) => typeof value === 'boolean');
    case 'date':
      return expect(
        'date',
        (value) =>
          typeof value === 'string' && isoDate.test(value) && !Number.isNaN(Date.parse(value)),
      );
    case 'properties': {
      if (key !== 'properties')
        return `a Properties value must be wrapped as "properties", not "${key}"`;
      const property = isObject(inner) ? inner['property'] : undefined;
      if (!Array.isArray(property)) return '"properties" needs a "property" list';
      for (const item of property) {
        if (!isObject(item) || typeof item['key'] !== 'string') return 'a property needs a "key"';
        if (anyWrapperProblem(item['value']) !== undefined) {
          return `property "${item['key']}": ${anyWrapperProblem(item['value']) ?? ''}`;
        }
      }
      return undefined;
    }
    default:
      if (!isSdkType(type)) return `type ${type} cannot be set through the simulator`;
      if (key !== 'sdk-object')
        return `a ${type} value must be wrapped as "sdk-object", not "${key}"`;
      if (!isObject(inner) || inner['type'] !== type) return `"sdk-object" type must be ${type}`;
      if (typeof inner['id'] !== 'string' || inner['id'] === '') return '"sdk-object" needs an id';
      return undefined;
  }
}

/** A property value may be of any simple kind. */
function anyWrapperProblem(wrapper: unknown): string | undefined {
  const entry = only(wrapper);
  if (entry === undefined) return 'the value must be an object with exactly one type key';
  const [key, inner] = entry;
  switch (key) {
    case 'string':
      return wrapperProblem('string', wrapper);
    case 'number':
      return wrapperProblem('number', wrapper);
    case 'boolean':
      return wrapperProblem('boolean', wrapper);
    case 'date':
      return wrapperProblem('Date', wrapper);
    case 'secure-string':
      return wrapperProblem('SecureString', wrapper);
    case 'properties':
      return wrapperProblem('Properties', wrapper);
    case 'array': {
      const elements = isObject(inner) ? inner['elements'] : undefined;
      if (!Array.isArray(elements)) return '"array" needs an "elements" list';
      for (const element of elements) {
        const problem = element === null ? undefined : anyWrapperProblem(element);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    case 'sdk-object':
      return isObject(inner) && typeof inner['type'] === 'string'
        ? wrapperProblem(inner['type'], wrapper)
        : '"sdk-object" needs a type';
    default:
      return `unknown value type "${key}"`;
  }
}

/** A checked wrapper as plain JSON (for the seed's result functions). */
export function plainValue(wrapper: unknown): unknown {
  const entry = only(wrapper);
  if (entry === undefined) return null;
  const [key, inner] = entry;
  if (!isObject(inner)) return null;
  switch (key) {
    case 'array':
      return (inner['elements'] as unknown[]).map((element) =>
        element === null ? null : plainValue(element),
      );
    case 'properties':
      return Object.fromEntries(
        (inner['property'] as Json[]).map((item) => [item['key'], plainValue(item['value'])]),
      );
    case 'sdk-object':
      return { type: inner['type'], id: inner['id'] };
    default:
      return inner['value'];
  }
}

/** A received wrapper as vRO echoes it: numbers become doubles. */
export function echoWrapper(wrapper: unknown): unknown {
  if (Array.isArray(wrapper)) return wrapper.map(echoWrapper);
  if (!isObject(wrapper)) return wrapper;
  const entry = only(wrapper);
  if (entry !== undefined && entry[0] === 'number' && isObject(entry[1])) {
    const value = entry[1]['value'];
    return { number: { value: typeof value === 'number' ? new JavaDouble(value) : value } };
  }
  return Object.fromEntries(
    Object.entries(wrapper).map(([key, value]) => [key, echoWrapper(value)]),
  );
}

/** Plain JSON written as a value of `type`, as vRO returns outputs. */
export function wrapOutput(type: string, value: unknown, root: string): unknown {
  if (value === null || value === undefined) return undefined;
  const lower = type.toLowerCase();
  if (lower.startsWith('array/')) {
    const list = Array.isArray(value) ? value : [value];
    return {
      array: { elements: list.map((element) => wrapOutput(type.slice(6), element, root) ?? null) },
    };
  }
  switch (lower) {
    case 'string':
      return { string: { value: text(value) } };
    case 'securestring':
      return { 'secure-string': { value: text(value) } };
    case 'number':
      return { number: { value: new JavaDouble(Number(value)) } };
    case 'boolean':
      return { boolean: { value: Boolean(value) } };
    case 'date':
      return { date: { value: javaIsoDate(value) } };
    case 'properties':
      return {
        properties: {
          property: Object.entries(isObject(value) ? value : {}).map(([key, entry]) => ({
            key,
            value: wrapInferred(entry, root),
          })),
        },
      };
    default: {
      const id = text(isObject(value) ? value['id'] : value);
      return {
        'sdk-object': {
          type,
          id,
          href: `${root}/catalog/${type.replace(':', '/')}/${encodeURIComponent(id)}/`,
        },
      };
    }
  }
}

function wrapInferred(value: unknown, root: string): unknown {
  if (typeof value === 'number') return wrapOutput('number', value, root);
  if (typeof value === 'boolean') return wrapOutput('boolean', value, root);
  if (Array.isArray(value)) {
    return { array: { elements: value.map((element) => wrapInferred(element, root) ?? null) } };
  }
  if (isObject(value)) {
    return typeof value['type'] === 'string' && typeof value['id'] === 'string'
      ? wrapOutput(value['type'], value, root)
      : wrapOutput('Properties', value, root);
  }
  return value === null ? null : wrapOutput('string', value, root);
}

/** A default output of `type` for a run that has no seeded value for it. */
export function defaultOutput(type: string, run: number, now: number): unknown {
  const lower = type.toLowerCase();
  if (lower.startsWith('array/')) return [];
  switch (lower) {
    case 'string':
      return 'OK';
    case 'securestring':
      return '********';
    case 'number':
      return run;
    case 'boolean':
      return true;
    case 'date':
      return new Date(now).toISOString();
    case 'properties':
      return {};
    default:
      return { type, id: `vcenter-01/${type.split(':')[1]?.toLowerCase() ?? 'object'}-${run}` };
  }
}

/** vRO writes dates with a numeric offset. */
function javaIsoDate(value: unknown): string {
  const time = typeof value === 'number' ? value : Date.parse(String(value));
  if (Number.isNaN(time)) return text(value);
  return new Date(time).toISOString().replace('Z', '+00:00');
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
