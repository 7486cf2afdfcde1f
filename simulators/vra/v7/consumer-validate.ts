/**
 * How strictly the simulated vRA checks a submitted request body against the
 * template it handed out: no unknown key at any level, every value of the
 * template's JSON type (a template null accepts any value), the header
 * fields present and right. Answers the problem, or undefined.
 */

import { isObject } from './catalog.ts';

type Json = Record<string, unknown>;

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return `a ${typeof value}`;
}

/** Checks `value` against the template's value at `where`. */
export function shapeProblem(template: unknown, value: unknown, where: string): string | undefined {
  if (template === null || template === undefined) return undefined;
  if (value === null) return undefined;
  if (isObject(template)) {
    if (!isObject(value)) return `${where} must be an object, not ${kind(value)}`;
    for (const [key, inner] of Object.entries(value)) {
      if (!Object.hasOwn(template, key)) return `${where} has no field "${key}"`;
      const problem = shapeProblem(template[key], inner, `${where}.${key}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (Array.isArray(template)) {
    if (!Array.isArray(value)) return `${where} must be an array, not ${kind(value)}`;
    const model: unknown = template[0];
    for (const [i, item] of value.entries()) {
      const problem = shapeProblem(model, item, `${where}[${i}]`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (typeof template !== typeof value) {
    return `${where} must be ${kind(template)}, not ${kind(value)}`;
  }
  return undefined;
}

/** Header fields that must be the template's own (the path's item, resource and action). */
const fixedFields = ['type', 'catalogItemId', 'resourceId', 'actionId'];

/**
 * Checks a submitted body: an object with exactly the template's header
 * fields (`type`, the ids, `requestedFor`, ...), the required ones set, the
 * ids those of the path, and `data` shaped like the template's.
 */
export function requestBodyProblem(
  body: unknown,
  template: Json,
  required: readonly string[],
): string | undefined {
  if (!isObject(body)) return 'The provided resource was null or not an object.';
  for (const field of required) {
    const value = body[field];
    if (typeof value !== 'string' || value.trim() === '') {
      return `Missing required field: ${field}.`;
    }
    if (fixedFields.includes(field) && value !== template[field]) {
      return `${field} "${value}" does not match the request (expected "${String(template[field])}").`;
    }
  }
  for (const key of Object.keys(body)) {
    if (!Object.hasOwn(template, key)) return `Unrecognized field "${key}".`;
  }
  for (const field of ['description', 'reasons']) {
    const value = body[field];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      return `${field} must be a string.`;
    }
  }
  const data = body['data'];
  if (!isObject(data)) return 'data must be an object.';
  const problem = shapeProblem(template['data'], data, 'data');
  return problem === undefined ? undefined : `${problem}.`;
}
