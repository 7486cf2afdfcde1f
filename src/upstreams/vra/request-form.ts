/**
 * A catalog item's request form, the same on both generations, read from the
 * request template the item's client answers: vRA 8's carries the item's
 * input schema (JSON Schema, `toRequestTemplate`), vRA 7's only its `data`
 * (values, components with their own `data`). Pure: no call, no GraphQL.
 */
import { isObject } from './decode.ts';
import type { WireRequestTemplate } from './wire.ts';

type Json = Record<string, unknown>;

export interface FormChoice {
  value: unknown;
  label: string | null;
}

export interface FormField {
  name: string;
  label: string | null;
  description: string | null;
  type: string;
  required: boolean;
  readOnly: boolean;
  defaultValue: unknown;
  choices: FormChoice[] | null;
  minimum: number | null;
  maximum: number | null;
  minLength: number | null;
  maxLength: number | null;
  pattern: string | null;
  group: string | null;
  /** Where the value goes in the template's `data`: keys from the top. */
  place: readonly string[];
}

/** Fields past this many are not drawn (no real form comes near; a hostile schema may). */
const maxFields = 2000;

/** vRA 8's template: the gateway's own (`toRequestTemplate`), with the item's schema. */
export function isVra8Template(template: WireRequestTemplate): boolean {
  return template['type'] === 'vra8.CatalogItemRequest';
}

/** The form of a request template; null when the appliance gives none. */
export function requestForm(template: WireRequestTemplate | null): FormField[] | null {
  if (template === null) return null;
  if (isVra8Template(template)) return schemaForm(template['schema']);
  const data = template['data'];
  return isObject(data) ? templateForm(data) : null;
}

const number = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const count = (value: unknown): number | null =>
  Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : null;
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** JSON Schema's type of a property, with vRA 8's `encrypted` and `format: date-time`. */
function schemaType(property: Json): string {
  if (property['encrypted'] === true || property['writeOnly'] === true) return 'secret';
  const declared: unknown = property['type'];
  const type: unknown = Array.isArray(declared)
    ? declared.find((one: unknown) => one !== 'null')
    : declared;
  if (type === 'string' && property['format'] === 'date-time') return 'date-time';
  return typeof type === 'string' &&
    ['string', 'integer', 'number', 'boolean', 'array', 'object'].includes(type)
    ? type
    : 'string';
}

/** A value as its own label: text as it is, anything else as JSON. */
const labelOf = (value: unknown): string =>
  typeof value === 'string' ? value : JSON.stringify(value);

/** `enum` (values as their own labels) or `oneOf: [{ const, title }]`. */
function schemaChoices(property: Json): FormChoice[] | null {
  if (Array.isArray(property['enum'])) {
    return property['enum'].map((value: unknown) => ({ value, label: labelOf(value) }));
  }
  const oneOf = property['oneOf'];
  if (Array.isArray(oneOf) && oneOf.length > 0 && oneOf.every((o) => isObject(o) && 'const' in o)) {
    return (oneOf as Json[]).map((option) => ({
      value: option['const'],
      label: text(option['title']) ?? labelOf(option['const']),
    }));
  }
  return null;
}

function schemaForm(schema: unknown): FormField[] | null {
  if (!isObject(schema)) return null;
  const properties = schema['properties'];
  if (!isObject(properties)) return [];
  const required = new Set(Array.isArray(schema['required']) ? schema['required'] : []);
  const fields: FormField[] = [];
  for (const [name, value] of Object.entries(properties)) {
    if (fields.length === maxFields) break;
    const property = isObject(value) ? value : {};
    fields.push({
      name,
      label: text(property['title']),
      description: text(property['description']),
      type: schemaType(property),
      required: required.has(name),
      readOnly: property['readOnly'] === true,
      defaultValue: 'default' in property ? property['default'] : null,
      choices: schemaChoices(property),
      minimum: number(property['minimum']),
      maximum: number(property['maximum']),
      minLength: count(property['minLength']),
      maxLength: count(property['maxLength']),
      pattern: text(property['pattern']),
      group: null,
      place: [name],
    });
  }
  return fields;
}

/** `cpu` -> "Cpu", `_leaseDays` -> "Lease days", `max_per_user` -> "Max per user". */
function readable(key: string): string {
  const words = key
    .replace(/^_+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.]+/g, ' ')
    .trim()
    .toLowerCase();
  return words === '' ? key : words.charAt(0).toUpperCase() + words.slice(1);
}

function valueType(value: unknown): string {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (Array.isArray(value)) return 'array';
  if (isObject(value)) return 'object';
  return 'string';
}

function valueField(
  name: string,
  key: string,
  value: unknown,
  group: string | null,
  place: string[],
): FormField {
  return {
    name,
    label: readable(key),
    description: null,
    type: valueType(value),
    required: false,
    readOnly: false,
    defaultValue: value ?? null,
    choices: null,
    minimum: null,
    maximum: null,
    minLength: null,
    maxLength: null,
    pattern: null,
    group,
    place,
  };
}

/** A component of a vRA 7 template: an object with a `data` object of its own and a class. */
function isComponent(value: unknown): value is Json & { data: Json } {
  return isObject(value) && isObject(value['data']) && typeof value['classId'] === 'string';
}

/**
 * vRA 7's own settings of a request, which its template holds as null or a
 * number: the lease in days and how many copies to build (vRA 7's request
 * form shows both as whole numbers of at least 1).
 */
const requestSettings: Record<string, { type: string; minimum: number }> = {
  _leaseDays: { type: 'integer', minimum: 1 },
  _number_of_instances: { type: 'integer', minimum: 1 },
};

/**
 * vRA 7 gives values, not a schema: each top-level value is a field, each
 * component's values are fields named `component.key`, grouped by component.
 * A component's keys starting with `_` are vRA's own bookkeeping
 * (`_cluster`, `_hasChildren`) and are left out; top-level ones
 * (`_leaseDays`, `_number_of_instances`) are the request's own settings.
 */
function templateForm(data: Json): FormField[] {
  const fields: FormField[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (fields.length >= maxFields) break;
    if (!isComponent(value)) {
      const field = valueField(key, key, value, null, [key]);
      const setting = Object.hasOwn(requestSettings, key) ? requestSettings[key] : undefined;
      fields.push(setting === undefined ? field : { ...field, ...setting });
      continue;
    }
    for (const [inner, innerValue] of Object.entries(value.data)) {
      if (fields.length >= maxFields) break;
      if (inner.startsWith('_')) continue;
      fields.push(valueField(`${key}.${inner}`, inner, innerValue, key, [key, 'data', inner]));
    }
  }
  return fields;
}
