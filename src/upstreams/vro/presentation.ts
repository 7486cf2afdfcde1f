import { upstreamJson } from '../../json-bounds.ts';
import { bad, isObject } from './decode.ts';
import { unwrapValue } from './unwrap-value.ts';
import type { FormFieldRecord, FormRecord } from './wire.ts';

type Json = Record<string, unknown>;

/** Where a field sits: the titles of its step and group, and whether either is hidden. */
interface Place {
  step: string | null;
  group: string | null;
  hidden: boolean;
}

/** Kinds of decorator or constraint that list the values to choose from. */
const choiceKinds = new Set(['drop-down', 'predefined-list']);
/** Kinds that carry a default value (names unconfirmed: no captured body has one). */
const defaultKinds = new Set(['default-value', 'default']);

/**
 * `GET /workflows/{id}/presentation/` as a form: `steps[].step.elements[]`
 * are groups (`@type: group`) holding `fields[]`, or fields directly; step
 * and group titles may be absent. Each input parameter comes once, in
 * presentation order; inputs the presentation leaves out follow, in declared
 * order; presentation fields that are not inputs are left out. Values of
 * decorators and constraints come in the typed wrappers of execution
 * parameters, beside their `@type` (docs/upstreams.md, vRO).
 */
export function decodePresentation(json: unknown, status: number): FormRecord {
  if (!isObject(json)) throw bad('a presentation that is not an object', status);
  const inputs = declaredInputs(json['input-parameters'], status);
  const steps = json['steps'] ?? [];
  if (!Array.isArray(steps)) throw bad('a presentation whose steps are not a list', status);
  const fields = new Map<string, FormFieldRecord>();
  const add = (field: Json, place: Place): void => {
    const name = field['id'];
    if (typeof name !== 'string' || fields.has(name)) return;
    const declared = inputs?.get(name);
    if (inputs !== null && declared === undefined) return;
    fields.set(name, decodeField(field, name, declared, place, status));
  };
  const walk = (elements: unknown, place: Place): void => {
    if (elements === undefined || elements === null) return;
    if (!Array.isArray(elements)) throw bad('presentation elements that are not a list', status);
    for (const element of elements) {
      if (!isObject(element)) throw bad('a presentation element that is not an object', status);
      if (element['@type'] === 'group') {
        walk(element['fields'], {
          step: place.step,
          group: title(element),
          hidden: place.hidden || flag(element['hidden']),
        });
      } else {
        add(element, place);
        walk(element['fields'], place);
      }
    }
  };
  for (const item of steps) {
    const step = isObject(item) ? (item['step'] ?? item) : undefined;
    if (!isObject(step)) throw bad('a presentation step that is not an object', status);
    walk(step['elements'], { step: title(step), group: null, hidden: flag(step['hidden']) });
  }
  for (const [name, declared] of inputs ?? []) {
    if (!fields.has(name)) {
      fields.set(
        name,
        decodeField({}, name, declared, { step: null, group: null, hidden: false }, status),
      );
    }
  }
  return { fields: [...fields.values()] };
}

interface Declared {
  type: string;
  description: string | null;
}

/** The presentation's own `input-parameters` by name; null when it lists none. */
function declaredInputs(list: unknown, status: number): Map<string, Declared> | null {
  if (list === undefined || list === null) return null;
  if (!Array.isArray(list)) throw bad('presentation inputs that are not a list', status);
  const inputs = new Map<string, Declared>();
  for (const entry of list) {
    if (
      !isObject(entry) ||
      typeof entry['name'] !== 'string' ||
      typeof entry['type'] !== 'string'
    ) {
      throw bad('a presentation input without name or type', status);
    }
    inputs.set(entry['name'], { type: entry['type'], description: text(entry['description']) });
  }
  return inputs;
}

function decodeField(
  field: Json,
  name: string,
  declared: Declared | undefined,
  place: Place,
  status: number,
): FormFieldRecord {
  const type = text(field['type']) ?? declared?.type;
  if (type === undefined) throw bad(`a presentation field without a type (${name})`, status);
  const qualifiers = [...list(field['constraints']), ...list(field['decorators'])];
  const kind = (qualifier: Json): string => text(qualifier['@type']) ?? '';
  const choices = qualifiers.find((qualifier) => choiceKinds.has(kind(qualifier)));
  const fallback = qualifiers.find((qualifier) => defaultKinds.has(kind(qualifier)));
  return {
    name,
    type,
    label: text(field['display-name']),
    description: text(field['description']) ?? declared?.description ?? null,
    required: qualifiers.some((qualifier) => kind(qualifier) === 'mandatory'),
    hidden: place.hidden || flag(field['hidden']),
    step: place.step,
    group: place.group,
    choices:
      choices === undefined
        ? null
        : (upstreamJson('vro', choiceList(qualifierValue(choices))) as FormFieldRecord['choices']),
    defaultValue:
      fallback === undefined ? null : upstreamJson('vro', qualifierValue(fallback) ?? null),
  };
}

/** The typed value beside a qualifier's `@type` (`{"@type": "drop-down", "array": {...}}`), unwrapped. */
function qualifierValue(qualifier: Json): unknown {
  const entries = Object.entries(qualifier).filter(([key]) => key !== '@type');
  if (entries.length !== 1) return undefined;
  return unwrapValue(Object.fromEntries(entries));
}

/** The non-null values of a list; null when none is left (vRO sends `[null]` for a computed list). */
function choiceList(value: unknown): unknown[] | null {
  if (!Array.isArray(value)) return null;
  const values = value.filter((element) => element !== null && element !== undefined);
  return values.length === 0 ? null : values;
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function title(element: Json): string | null {
  return text(element['title']) ?? text(element['display-name']);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** vRO writes real booleans here; a string "true" is read too. */
function flag(value: unknown): boolean {
  return value === true || value === 'true';
}
