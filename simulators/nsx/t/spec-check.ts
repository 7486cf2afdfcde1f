/**
 * Checks bodies against the Policy API definitions in
 * `simulators/nsx/t/specs/nsx-policy-api.json` (Swagger 2.0, see SOURCES.md there).
 *
 * Each definition is compiled twice: open (for `allOf` inheritance) and closed
 * (`unevaluatedProperties: false`, what a body must match: a field the manager
 * does not know is refused, as the manager's JSON reader does). A reference to
 * a polymorphic base (`discriminator: resource_type`, e.g. `Expression`,
 * `ServiceEntry`) accepts each subtype of the file by its `resource_type`, and
 * only those.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import spec from './specs/nsx-policy-api.json' with { type: 'json' };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const definitions = (spec as unknown as { definitions: Record<string, JsonObject> }).definitions;

/** Definition names whose first `allOf` entry is the given base. */
function subtypesOf(base: string): string[] {
  return Object.entries(definitions)
    .filter(([, definition]) => {
      const allOf = definition['allOf'];
      return (
        Array.isArray(allOf) && isObject(allOf[0]) && allOf[0]['$ref'] === `#/definitions/${base}`
      );
    })
    .map(([name]) => name);
}

const polymorphic = new Set(
  Object.entries(definitions)
    .filter(([, definition]) => definition['discriminator'] === 'resource_type')
    .map(([name]) => name),
);

/** Swagger keywords to JSON Schema 2020; `inherited` marks a position inside `allOf`. */
function convert(value: Json, inherited = false): Json {
  if (Array.isArray(value)) return value.map((item) => convert(item));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'discriminator') continue;
    if (key === '$ref' && typeof inner === 'string') {
      const name = inner.replace('#/definitions/', '');
      if (inherited) out[key] = `#/$defs/${name}`;
      else if (polymorphic.has(name)) out[key] = `#/$defs/${name}__any`;
      else out[key] = `#/$defs/${name}__closed`;
    } else if (key === 'allOf' && Array.isArray(inner)) {
      out[key] = inner.map((item) => convert(item, true));
    } else out[key] = convert(inner);
  }
  return out;
}

function buildSchema(): JsonObject {
  const defs: JsonObject = {};
  for (const [name, definition] of Object.entries(definitions)) {
    defs[name] = convert(definition);
    defs[`${name}__closed`] = { $ref: `#/$defs/${name}`, unevaluatedProperties: false };
  }
  for (const base of polymorphic) {
    const subtypes = subtypesOf(base);
    defs[`${base}__any`] = {
      type: 'object',
      required: ['resource_type'],
      properties: { resource_type: { enum: subtypes } },
      allOf: subtypes.map((subtype) => ({
        if: { properties: { resource_type: { const: subtype } } },
        then: { $ref: `#/$defs/${subtype}` },
      })),
      unevaluatedProperties: false,
    };
  }
  return { $id: 'nsx-policy-api', $defs: defs };
}

const ajv = new Ajv2020({ allErrors: false, strict: true, strictTypes: false });
ajv.addSchema(buildSchema());
const compiled = new Map<string, ValidateFunction>();

function validator(name: string, closed: boolean): ValidateFunction {
  const key = closed ? `${name}__closed` : name;
  let validate = compiled.get(key);
  if (validate === undefined) {
    if (definitions[name] === undefined) throw new Error(`no definition ${name}`);
    validate = ajv.getSchema(`nsx-policy-api#/$defs/${key}`);
    if (validate === undefined) throw new Error(`definition ${name} did not compile`);
    compiled.set(key, validate);
  }
  return validate;
}

/** The first complaint about `body` as a `name`, in the manager's words, or null when it is one. */
export function specProblem(name: string, body: unknown, closed = true): string | null {
  const validate = validator(name, closed);
  if (validate(body)) return null;
  const [error] = validate.errors ?? [];
  if (error === undefined) return `invalid ${name}`;
  const where = error.instancePath === '' ? name : `${name}${error.instancePath}`;
  if (error.keyword === 'unevaluatedProperties') {
    const { unevaluatedProperty } = error.params as { unevaluatedProperty?: unknown };
    const field = typeof unevaluatedProperty === 'string' ? unevaluatedProperty : '';
    return `Unrecognized field "${field}" in ${where}: not marked as ignorable.`;
  }
  return `Field ${where} ${error.message ?? 'is invalid'}.`;
}

/** Throws when an answer the simulator is about to send is not a `name`: a simulator bug. */
export function assertSpec(name: string, body: unknown, closed = true): void {
  const problem = specProblem(name, body, closed);
  if (problem !== null) throw new Error(`simulator answer is not a ${name}: ${problem}`);
}

/** Names of the definitions in the file (tests walk them). */
export function definitionNames(): string[] {
  return Object.keys(definitions);
}
