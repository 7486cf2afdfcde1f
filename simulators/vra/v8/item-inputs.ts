import { Ajv, type ErrorObject } from 'ajv';
import { badRequest } from './errors.ts';

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });

function describe(error: ErrorObject): string {
  const field = error.instancePath.replace(/^\//, '') || 'inputs';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required')
    return `Missing required input '${String(params['missingProperty'])}'`;
  if (error.keyword === 'additionalProperties')
    return `Unknown input '${String(params['additionalProperty'])}'`;
  if (error.keyword === 'enum')
    return `Input '${field}' must be one of ${JSON.stringify(params['allowedValues'])}`;
  return `Input '${field}' ${error.message ?? 'is invalid'}`;
}

/**
 * Checks a request's `inputs` against a catalog item's (or action's) input
 * schema: required inputs, types, enums and bounds, and no input the schema
 * does not name. Answers the inputs with the schema's defaults filled in;
 * refuses with 400 naming every problem.
 */
export function checkInputs(
  schema: Record<string, unknown>,
  inputs: unknown,
): Record<string, unknown> {
  const closed = { ...schema, additionalProperties: false };
  const validate = ajv.compile(closed);
  const copy: unknown = inputs === undefined ? {} : structuredClone(inputs);
  if (!validate(copy))
    throw badRequest(`Invalid inputs: ${(validate.errors ?? []).map(describe).join('; ')}`);
  return copy as Record<string, unknown>;
}
