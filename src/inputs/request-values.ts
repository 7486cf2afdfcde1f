/**
 * `RequestCatalogItemInput.values`, checked against the item's request form
 * (src/upstreams/vra/request-form.ts) before the request is submitted, then
 * placed where the generation's body wants them. Every wrong field is named
 * in `extensions.fields`, so that a form can show each message beside its field.
 */
import { BadUserInputError, type FieldProblem } from '../errors.ts';
import type { FormValueInput } from '../generated/graphql.ts';
import { isObject } from '../upstreams/vra/decode.ts';
import { requestForm, type FormField } from '../upstreams/vra/request-form.ts';
import type { WireRequestTemplate } from '../upstreams/vra/wire.ts';

type Json = Record<string, unknown>;

/** More values than any form has fields is a mistake, refused before any call. */
const maxValues = 2000;

function refuseFields(problems: FieldProblem[]): never {
  const said = problems.map((problem) => `${problem.name} ${problem.message}`).join('; ');
  throw new BadUserInputError(`input.values: ${said}.`, 'input.values', problems);
}

/** The values' own shape: bounded, each name once. Checked before any call. */
export function checkValuesShape(
  values: readonly FormValueInput[] | null | undefined,
): readonly FormValueInput[] | undefined {
  if (values === undefined || values === null) return undefined;
  if (values.length > maxValues) {
    throw new BadUserInputError(`input.values has more than ${maxValues} entries.`, 'input.values');
  }
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  for (const { name } of values) {
    if (name.trim() === '') problems.push({ name, message: 'is not a field name' });
    else if (seen.has(name)) problems.push({ name, message: 'is given more than once' });
    seen.add(name);
  }
  if (problems.length > 0) refuseFields(problems);
  return values;
}

/** JSON Schema counts characters as code points. */
const codePoints = (value: string): number => {
  let length = value.length;
  for (let i = 0; i < value.length; i += 1) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xdc00 && unit <= 0xdfff && i > 0) {
      const before = value.charCodeAt(i - 1);
      if (before >= 0xd800 && before <= 0xdbff) length -= 1;
    }
  }
  return length;
};

/** A regular expression of the appliance's, or undefined when it is not one JavaScript reads. */
function compiled(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

function typeProblem(field: FormField, value: unknown): string | undefined {
  switch (field.type) {
    case 'integer':
      return Number.isSafeInteger(value) ? undefined : 'must be a whole number';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'array':
      return Array.isArray(value) ? undefined : 'must be a list';
    case 'object':
      return isObject(value) ? undefined : 'must be a JSON object';
    case 'date-time':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value))
        ? undefined
        : 'must be a date and time (ISO 8601)';
    default:
      return typeof value === 'string' ? undefined : 'must be text';
  }
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** What is wrong with one value for its field, or undefined. */
function valueProblem(field: FormField, value: unknown): string | undefined {
  if (field.readOnly) return 'is read-only';
  const wrongType = typeProblem(field, value);
  if (wrongType !== undefined) return wrongType;
  if (field.choices !== null && !field.choices.some((choice) => same(choice.value, value))) {
    const allowed = field.choices.map((choice) => JSON.stringify(choice.value)).join(', ');
    return `must be one of ${allowed}`;
  }
  if (typeof value === 'number') {
    if (field.minimum !== null && value < field.minimum) return `must be at least ${field.minimum}`;
    if (field.maximum !== null && value > field.maximum) return `must be at most ${field.maximum}`;
  }
  if (typeof value === 'string') {
    const length = codePoints(value);
    if (field.minLength !== null && length < field.minLength) {
      return field.minLength === 1
        ? 'must not be empty'
        : `must be at least ${field.minLength} characters long`;
    }
    if (field.maxLength !== null && length > field.maxLength) {
      return `must be at most ${field.maxLength} characters long`;
    }
    const pattern = field.pattern === null ? undefined : compiled(field.pattern);
    if (pattern !== undefined && !pattern.test(value)) return `must match ${field.pattern}`;
  }
  return undefined;
}

/** `data` with `value` at `place`, each object on the way copied, never changed. */
function placed(data: Json, place: readonly string[], value: unknown): Json {
  const [key, ...rest] = place;
  if (key === undefined) return data;
  const inner = data[key];
  const next = rest.length === 0 ? value : placed(isObject(inner) ? inner : {}, rest, value);
  const out: Json = { ...data };
  Object.defineProperty(out, key, {
    value: next,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return out;
}

function at(data: unknown, place: readonly string[]): unknown {
  let here = data;
  for (const key of place)
    here = isObject(here) && Object.hasOwn(here, key) ? here[key] : undefined;
  return here;
}

/**
 * The template's `data` with the values placed in it, after checking each
 * against its field: type, choices, bounds, pattern, read-only; then every
 * required field must hold a value. A null value sends none (the default applies).
 */
export function applyFormValues(
  form: readonly FormField[] | null,
  values: readonly FormValueInput[],
  data: Json,
): Json {
  if (form === null) {
    refuseFields(
      values.map(({ name }) => ({ name, message: 'is not a field: the item has no form' })),
    );
  }
  const byName = new Map(form.map((field) => [field.name, field]));
  const problems: FieldProblem[] = [];
  let out = data;
  for (const { name, value } of values) {
    const field = byName.get(name);
    if (field === undefined) {
      problems.push({ name, message: "is not a field of the item's form" });
      continue;
    }
    if (value === null || value === undefined) continue;
    const problem = valueProblem(field, value);
    if (problem === undefined) out = placed(out, field.place, value);
    else problems.push({ name, message: problem });
  }
  const wrong = new Set(problems.map((problem) => problem.name));
  for (const field of form) {
    if (!field.required || field.readOnly || wrong.has(field.name)) continue;
    const value = at(out, field.place);
    if (value === undefined || value === null || value === '') {
      problems.push({ name: field.name, message: 'is required' });
    }
  }
  if (problems.length > 0) refuseFields(problems);
  return out;
}

/** The edited body with `values` placed in its `data`, checked against the template's form. */
export function withFormValues(
  template: WireRequestTemplate,
  body: Json,
  values: readonly FormValueInput[] | undefined,
): Json {
  if (values === undefined) return body;
  const data = isObject(body['data']) ? body['data'] : {};
  return { ...body, data: applyFormValues(requestForm(template), values, data) };
}
