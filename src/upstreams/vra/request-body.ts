import { BadUserInputError } from '../../errors.ts';
import { isObject } from './decode.ts';
import { isVra8Template } from './request-form.ts';
import type { WireRequestTemplate } from './wire.ts';

type Json = Record<string, unknown>;

/** Deeper patches are refused (and no template that deep is real). */
const maxDepth = 32;

/**
 * `patch` merged into `base`: objects merged key by key (recursively), any
 * other value (array, string, number, boolean, null) replaces what was there.
 * Neither argument is changed.
 */
export function mergeData(base: unknown, patch: unknown, depth = 0): unknown {
  if (!isObject(patch) || !isObject(base)) return patch;
  if (depth > maxDepth) throw new BadUserInputError('"data" is nested too deeply.', 'input.data');
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    Object.defineProperty(out, key, {
      value: mergeData(Object.hasOwn(base, key) ? base[key] : undefined, value, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

export interface RequestEdits {
  data?: Json | undefined;
  description?: string | null | undefined;
  reasons?: string | null | undefined;
  businessGroupId?: string | null | undefined;
  /** vRA 8: the deployment's name; vRA 7: the description when none is given. */
  deploymentName?: string | null | undefined;
}

/**
 * The body to submit: the template with `data` merged in, and description,
 * reasons and business group set when given (else the template's).
 */
export function editTemplate(template: WireRequestTemplate, edits: RequestEdits): Json {
  const body: Json = { ...template };
  if (edits.data !== undefined) body['data'] = mergeData(template['data'] ?? {}, edits.data);
  if (edits.description !== undefined && edits.description !== null) {
    body['description'] = edits.description;
  }
  if (edits.reasons !== undefined && edits.reasons !== null) body['reasons'] = edits.reasons;
  if (edits.businessGroupId !== undefined && edits.businessGroupId !== null) {
    body['businessGroupId'] = edits.businessGroupId;
  }
  const name = edits.deploymentName;
  if (name !== undefined && name !== null) {
    if (isVra8Template(template)) body['deploymentName'] = name;
    else if (typeof body['description'] !== 'string' || body['description'] === '') {
      body['description'] = name;
    }
  }
  return body;
}
