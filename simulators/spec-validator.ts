/**
 * Validates bodies against a Swagger 2.0 document's schemas with ajv, for the
 * simulators built from a vendor's published specification. Generic: it knows
 * Swagger 2.0, not any one product.
 *
 * Swagger 2.0 schemas are a dialect of JSON Schema draft 4/7; the differences
 * handled here:
 * - `#/definitions/X` references resolve inside the document (it is compiled
 *   as one schema with its `definitions`);
 * - `discriminator` is a property name in Swagger 2.0 (an object in OAS 3,
 *   which ajv's option expects): dropped;
 * - `example`, `x-*` and other vendor keywords are annotations: dropped;
 * - formats: ajv-formats' (`date-time`, `uuid`, `int32`, `int64`, `double`…);
 *   a format neither knows is accepted as any string;
 * - a `readOnly` property is required only in answers (Swagger 2.0: "SHOULD
 *   NOT be sent as part of the request").
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The parts of a Swagger 2.0 document this validator reads. */
export interface SwaggerDocument {
  swagger: string;
  paths: Record<string, Record<string, unknown>>;
  definitions?: Record<string, unknown>;
}

export type Direction = 'request' | 'response';

export interface SpecValidatorOptions {
  /**
   * Answers: an object schema with `properties` and no `additionalProperties`
   * refuses properties it does not name (default false, as Swagger 2.0 reads).
   * A simulator turns it on to catch its own misspelt fields.
   */
  closedAnswers?: boolean;
  /**
   * Properties a definition marks required that a request may leave out,
   * because the server assigns them, by definition name (`{ Thing: ['id'] }`).
   */
  requestOptional?: Record<string, readonly string[]>;
}

export interface SpecValidation {
  ok: boolean;
  /** One readable line per problem: `<where> <what>`, empty when ok. */
  errors: string[];
}

/** A body that the specification refuses (thrown by the `assert…` methods). */
export class SpecViolation extends Error {
  readonly errors: readonly string[];
  constructor(what: string, errors: readonly string[]) {
    super(`${what} does not match the specification: ${errors.join('; ')}`);
    this.name = 'SpecViolation';
    this.errors = errors;
  }
}

const httpMethods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch']);
const annotations = new Set(['example', 'discriminator', 'xml', 'externalDocs']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A Swagger 2.0 schema turned into the JSON Schema ajv compiles, for one direction. */
function convert(
  schema: Json,
  direction: Direction,
  options: SpecValidatorOptions,
  name?: string,
): Json {
  if (Array.isArray(schema)) return schema.map((item) => convert(item, direction, options));
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (annotations.has(key) || key.startsWith('x-')) continue;
    if (key === 'properties' && isObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([property, inner]) => [
          property,
          convert(inner, direction, options),
        ]),
      );
    } else if (key === 'definitions' && isObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([definition, inner]) => [
          definition,
          convert(inner, direction, options, definition),
        ]),
      );
    } else out[key] = convert(value, direction, options);
  }
  const properties = schema['properties'];
  if (direction === 'request' && Array.isArray(out['required'])) {
    const optional = new Set(name === undefined ? [] : (options.requestOptional?.[name] ?? []));
    out['required'] = out['required'].filter(
      (property) =>
        typeof property === 'string' &&
        !optional.has(property) &&
        !(
          isObject(properties) &&
          isObject(properties[property]) &&
          properties[property]['readOnly'] === true
        ),
    );
  }
  if (
    direction === 'response' &&
    options.closedAnswers === true &&
    isObject(properties) &&
    !('additionalProperties' in schema) &&
    !('allOf' in schema)
  )
    out['additionalProperties'] = false;
  return out;
}

function readable(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(body)' : error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties')
    return `${where} has unknown property "${String(params['additionalProperty'])}"`;
  if (error.keyword === 'required')
    return `${where} lacks required property "${String(params['missingProperty'])}"`;
  if (error.keyword === 'enum')
    return `${where} must be one of ${JSON.stringify(params['allowedValues'])}`;
  return `${where} ${error.message ?? 'is invalid'}`;
}

/** A validator of one Swagger 2.0 document's definitions and operations. */
export class SpecValidator {
  readonly #document: SwaggerDocument;
  readonly #ajv: Record<Direction, Ajv>;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(document: SwaggerDocument, options: SpecValidatorOptions = {}) {
    if (document.swagger !== '2.0') throw new Error('not a Swagger 2.0 document');
    this.#document = document;
    const make = (direction: Direction): Ajv => {
      const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
      (addFormatsModule as unknown as (ajv: Ajv) => Ajv)(ajv);
      ajv.addSchema(
        convert(
          { definitions: (document.definitions ?? {}) as Json },
          direction,
          options,
        ) as JsonObject,
        'spec',
      );
      return ajv;
    };
    this.#ajv = { request: make('request'), response: make('response') };
  }

  #validate(key: string, direction: Direction, schema: JsonObject, body: unknown): SpecValidation {
    let validate = this.#compiled.get(`${direction} ${key}`);
    if (validate === undefined) {
      const ajv = this.#ajv[direction];
      // Local references point into the compiled document of definitions.
      const rewritten = JSON.parse(
        JSON.stringify(schema).replaceAll('"#/definitions/', '"spec#/definitions/'),
      ) as Json;
      validate = ajv.compile(convert(rewritten, direction, {}) as JsonObject);
      this.#compiled.set(`${direction} ${key}`, validate);
    }
    if (validate(body)) return { ok: true, errors: [] };
    return { ok: false, errors: (validate.errors ?? []).map(readable) };
  }

  /** Whether the document defines this definition. */
  hasDefinition(name: string): boolean {
    return isObject(this.#document.definitions?.[name]);
  }

  /** Validates `body` against `#/definitions/<name>`. */
  validateDefinition(
    name: string,
    body: unknown,
    direction: Direction = 'response',
  ): SpecValidation {
    if (!this.hasDefinition(name)) throw new Error(`no definition ${name}`);
    return this.#validate(`definition ${name}`, direction, { $ref: `#/definitions/${name}` }, body);
  }

  /** The operation object of `method` on the path template `path` (`/items/{id}`), if any. */
  operation(method: string, path: string): JsonObject | undefined {
    const lower = method.toLowerCase();
    if (!httpMethods.has(lower)) return undefined;
    const item = this.#document.paths[path];
    const operation = item?.[lower];
    return isObject(operation) ? operation : undefined;
  }

  #requiredOperation(method: string, path: string): JsonObject {
    const operation = this.operation(method, path);
    if (operation === undefined) throw new Error(`no operation ${method.toUpperCase()} ${path}`);
    return operation;
  }

  /** The body parameter's schema of an operation, or undefined when it takes no body. */
  bodySchema(method: string, path: string): { schema: JsonObject; required: boolean } | undefined {
    const operation = this.#requiredOperation(method, path);
    const pathItem = this.#document.paths[path] ?? {};
    const parameters = [
      ...(Array.isArray(pathItem['parameters']) ? (pathItem['parameters'] as Json[]) : []),
      ...(Array.isArray(operation['parameters']) ? operation['parameters'] : []),
    ];
    for (const parameter of parameters) {
      if (isObject(parameter) && parameter['in'] === 'body' && isObject(parameter['schema']))
        return { schema: parameter['schema'], required: parameter['required'] === true };
    }
    return undefined;
  }

  /**
   * Validates a request body (already parsed; undefined when none was sent)
   * against the operation's body parameter.
   */
  validateRequestBody(method: string, path: string, body: unknown): SpecValidation {
    const parameter = this.bodySchema(method, path);
    if (parameter === undefined) return { ok: true, errors: [] };
    if (body === undefined)
      return parameter.required
        ? { ok: false, errors: ['(body) is required'] }
        : { ok: true, errors: [] };
    return this.#validate(
      `request ${method.toLowerCase()} ${path}`,
      'request',
      parameter.schema,
      body,
    );
  }

  /**
   * Validates an answer body against the operation's response schema for
   * `status` (or its `default`). A status the operation does not list is an
   * error; a listed status without a schema accepts any body.
   */
  validateResponse(method: string, path: string, status: number, body: unknown): SpecValidation {
    const operation = this.#requiredOperation(method, path);
    const responses = isObject(operation['responses']) ? operation['responses'] : {};
    const response = responses[String(status)] ?? responses['default'];
    if (!isObject(response))
      return {
        ok: false,
        errors: [`status ${status} is not an answer of ${method.toUpperCase()} ${path}`],
      };
    const schema = response['schema'];
    if (!isObject(schema)) return { ok: true, errors: [] };
    return this.#validate(
      `response ${method.toLowerCase()} ${path} ${status}`,
      'response',
      schema,
      body,
    );
  }

  /** Throws a SpecViolation when `body` is not a valid answer. */
  assertResponse(method: string, path: string, status: number, body: unknown): void {
    const result = this.validateResponse(method, path, status, body);
    if (!result.ok)
      throw new SpecViolation(
        `The ${status} answer of ${method.toUpperCase()} ${path}`,
        result.errors,
      );
  }

  /** The path templates of the document, each with its methods. */
  operations(): Array<{ method: string; path: string }> {
    const found: Array<{ method: string; path: string }> = [];
    for (const [path, item] of Object.entries(this.#document.paths))
      for (const method of Object.keys(item))
        if (httpMethods.has(method)) found.push({ method: method.toUpperCase(), path });
    return found;
  }
}

/**
 * The template of `paths` that a concrete request path matches
 * (`/items/{id}` for `/items/42`), preferring templates with fewer parameters.
 */
export function matchPathTemplate(templates: Iterable<string>, path: string): string | undefined {
  const segments = path.split('/');
  let best: { template: string; parameters: number } | undefined;
  for (const template of templates) {
    const parts = template.split('/');
    if (parts.length !== segments.length) continue;
    let parameters = 0;
    const fits = parts.every((part, index) => {
      if (/^\{[^}]+\}$/.test(part)) {
        parameters += 1;
        return (segments[index] ?? '') !== '';
      }
      return part === segments[index];
    });
    if (fits && (best === undefined || parameters < best.parameters))
      best = { template, parameters };
  }
  return best?.template;
}
