/**
 * The inputs of a workflow run (vRO), checked and encoded before the run is
 * sent: each value wrapped as its type says, every name declared by the
 * workflow. Throws BAD_USER_INPUT (argument `inputs`) naming the input.
 */
import type { WireParameterDecl, WireParameterValue, WireValue } from '../upstreams/vro/wire.ts';
import { refuse } from './check.ts';

/** A parsed vRO type name. */
export type VroType =
  | { kind: 'string' | 'number' | 'boolean' | 'date' | 'properties' | 'secure-string' }
  | { kind: 'array'; of: VroType }
  | { kind: 'sdk'; name: string };

export interface ParameterInput {
  name: string;
  type: string;
  value?: unknown;
}

const plainTypes: Record<string, VroType['kind']> = {
  string: 'string',
  number: 'number',
  boolean: 'boolean',
  date: 'date',
  properties: 'properties',
  securestring: 'secure-string',
};

/** Plugin types are `<plugin>:<type>`, e.g. `VC:VirtualMachine`, `AD:User`, `vCAC:Entity`. */
const sdkTypeName = /^[A-Za-z][A-Za-z0-9_]*:[A-Za-z0-9_][A-Za-z0-9_.:]*$/;

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

class ValueMismatch extends Error {}

/** Deeper `Array/Array/...` types than any workflow declares are refused (and never recursed into). */
const maxArrayNesting = 32;

/**
 * Parses a vRO type name: the plain types case-insensitively, `Array/<type>`
 * nested up to 32 times, plugin (SDK) types as written. Throws BAD_USER_INPUT otherwise.
 */
export function parseVroType(typeName: string): VroType {
  let element = typeName;
  let nesting = 0;
  while (/^array\//i.test(element)) {
    element = element.slice(6);
    nesting += 1;
    if (nesting > maxArrayNesting) {
      refuse(
        'inputs',
        `Unsupported vRO type: arrays are nested more than ${maxArrayNesting} deep.`,
      );
    }
  }
  let type = parseElementType(element);
  for (let i = 0; i < nesting; i += 1) type = { kind: 'array', of: type };
  return type;
}

function parseElementType(element: string): VroType {
  const plain = plainTypes[element.toLowerCase()];
  if (plain !== undefined) return { kind: plain } as VroType;
  if (sdkTypeName.test(element)) return { kind: 'sdk', name: element };
  refuse(
    'inputs',
    `Unsupported vRO type ${quote(element)}: use string, number, boolean, date, Properties, ` +
      'SecureString, Array/<type> or a plugin type such as VC:VirtualMachine.',
  );
}

/** The type name as vRO spells it. */
export function vroTypeName(type: VroType): string {
  switch (type.kind) {
    case 'string':
    case 'number':
    case 'boolean':
      return type.kind;
    case 'date':
      return 'Date';
    case 'properties':
      return 'Properties';
    case 'secure-string':
      return 'SecureString';
    case 'array':
      return `Array/${vroTypeName(type.of)}`;
    case 'sdk':
      return type.name;
  }
}

/**
 * The `parameters` of a run request: every input wrapped as its type says.
 * An input without a value (null) is left out, so vRO runs with it unset.
 * Throws BAD_USER_INPUT for a value that does not fit its type.
 */
export function encodeParameters(inputs: readonly ParameterInput[]): WireParameterValue[] {
  const seen = new Set<string>();
  const parameters: WireParameterValue[] = [];
  for (const input of inputs) {
    if (input.name === '') refuse('inputs', 'An input name is empty.');
    if (seen.has(input.name)) {
      refuse('inputs', `Input ${quote(input.name)} is given twice.`);
    }
    seen.add(input.name);
    const type = parseVroType(input.type);
    if (input.value === null || input.value === undefined) continue;
    let value: WireValue;
    try {
      value = encodeValue(type, input.value);
    } catch (error) {
      if (error instanceof ValueMismatch) {
        refuse('inputs', `Input ${quote(input.name)} (${vroTypeName(type)}): ${error.message}`);
      }
      throw error;
    }
    parameters.push({ name: input.name, type: vroTypeName(type), scope: 'local', value });
  }
  return parameters;
}

/**
 * Checks run inputs against the workflow's declared inputs before the run is
 * sent: every name must be declared (vRO names are case-sensitive) and of the
 * declared type. A declared type the gateway does not know (`Any`, a
 * composite type) is left for vRO to judge. Throws BAD_USER_INPUT naming the input.
 */
export function checkDeclaredInputs(
  inputs: readonly ParameterInput[],
  workflowName: string,
  declared: readonly WireParameterDecl[],
): void {
  const byName = new Map(declared.map((parameter) => [parameter.name, parameter]));
  for (const input of inputs) {
    const parameter = byName.get(input.name);
    if (parameter === undefined) {
      refuse(
        'inputs',
        `Input ${quote(input.name)} is not an input of workflow ${quote(workflowName)}; ` +
          `${declaredNames(declared)}.`,
      );
    }
    const expected = knownType(parameter.type);
    if (expected === undefined) continue;
    const given = vroTypeName(parseVroType(input.type));
    if (given !== expected) {
      refuse('inputs', `Input ${quote(input.name)} is declared as ${expected}, not ${given}.`);
    }
  }
}

/** The declared type as vRO spells it, or undefined for a type the gateway cannot encode. */
function knownType(typeName: string): string | undefined {
  try {
    return vroTypeName(parseVroType(typeName));
  } catch {
    return undefined;
  }
}

function declaredNames(declared: readonly WireParameterDecl[]): string {
  if (declared.length === 0) return 'it takes no inputs';
  const names = declared.slice(0, 20).map((parameter) => quote(parameter.name));
  const more = declared.length > 20 ? `, and ${declared.length - 20} more` : '';
  return `its inputs are ${names.join(', ')}${more}`;
}

/** Wraps one value as `type` says; throws ValueMismatch when it does not fit. */
export function encodeValue(type: VroType, value: unknown): WireValue {
  switch (type.kind) {
    case 'string':
      return { string: { value: expectString(value) } };
    case 'secure-string':
      return { 'secure-string': { value: expectString(value) } };
    case 'number':
      return { number: { value: expectNumber(value) } };
    case 'boolean':
      if (typeof value !== 'boolean') throw mismatch('expected true or false', value);
      return { boolean: { value } };
    case 'date':
      return { date: { value: expectInstant(value) } };
    case 'array': {
      if (!Array.isArray(value)) throw mismatch('expected an array', value);
      const elements = value.map((element: unknown, index) => {
        if (element === null) return null;
        try {
          return encodeValue(type.of, element);
        } catch (error) {
          if (error instanceof ValueMismatch) {
            throw new ValueMismatch(`element ${index}: ${error.message}`);
          }
          throw error;
        }
      });
      return { array: { elements } };
    }
    case 'properties':
      return encodeProperties(value);
    case 'sdk':
      return { 'sdk-object': { type: type.name, id: sdkObjectId(type.name, value) } };
  }
}

/** Properties values carry no declared type: each is wrapped by its JSON kind. */
function encodeProperties(value: unknown): WireValue {
  if (!isPlainObject(value)) throw mismatch('expected an object of key/value pairs', value);
  const property = Object.entries(value).map(([key, entry]) => {
    try {
      return { key, value: encodeInferred(entry) };
    } catch (error) {
      if (error instanceof ValueMismatch) {
        throw new ValueMismatch(`key ${quote(key)}: ${error.message}`);
      }
      throw error;
    }
  });
  return { properties: { property } };
}

function encodeInferred(value: unknown): WireValue {
  if (typeof value === 'string') return { string: { value } };
  if (typeof value === 'number') return { number: { value: expectNumber(value) } };
  if (typeof value === 'boolean') return { boolean: { value } };
  if (Array.isArray(value)) {
    return {
      array: {
        elements: value.map((element: unknown) =>
          element === null ? null : encodeInferred(element),
        ),
      },
    };
  }
  if (isPlainObject(value)) return encodeProperties(value);
  throw mismatch('expected a string, number, boolean, array or object', value);
}

function sdkObjectId(typeName: string, value: unknown): string {
  if (typeof value === 'string' && value !== '') return value;
  if (isPlainObject(value)) {
    const { id, type, ...rest } = value;
    if (Object.keys(rest).length > 0) {
      throw mismatch('expected { id } or { type, id } only', value);
    }
    if (type !== undefined && type !== typeName) {
      throw mismatch(`the object's type must be ${typeName}`, value);
    }
    if (typeof id === 'string' && id !== '') return id;
  }
  throw mismatch('expected the object id as a string, or { id }', value);
}

function expectString(value: unknown): string {
  if (typeof value !== 'string') throw mismatch('expected a string', value);
  return value;
}

function expectNumber(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw mismatch('expected a finite number', value);
  }
  return value;
}

function expectInstant(value: unknown): string {
  if (typeof value === 'string' && isoInstant.test(value)) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date.toISOString();
  }
  throw mismatch('expected an ISO 8601 instant with a time zone, e.g. 2024-05-01T12:00:00Z', value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mismatch(expected: string, value: unknown): ValueMismatch {
  return new ValueMismatch(`${expected}, got ${describe(value)}.`);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}

function quote(text: string): string {
  const short = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  return JSON.stringify(short);
}
