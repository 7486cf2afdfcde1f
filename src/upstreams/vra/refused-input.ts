import { UpstreamError, UpstreamStatusError, type FieldProblem } from '../../errors.ts';

/**
 * vRA 8 names each input it refuses, joined with "; " after a prefix
 * ("Invalid inputs: Missing required input 'hostname'; Input 'size' must be
 * one of [...]"); vRA 7 prefixes its detail with "Invalid argument:".
 */
const prefix = /^\s*(?:Invalid (?:argument|inputs?)\s*[:.]\s*)+/i;
const named = [
  { pattern: /^Missing required input '([^']+)'\.?$/, message: () => 'is required' },
  { pattern: /^Unknown input '([^']+)'\.?$/, message: () => "is not an input of the item's form" },
  { pattern: /^Input '([^']+)' (.+?)\.?$/, message: (said: string) => said },
];

/** The inputs vRA's message names, each with what vRA said of it. */
export function refusedFields(message: string | null): FieldProblem[] {
  if (message === null) return [];
  const fields: FieldProblem[] = [];
  for (const part of message.replace(prefix, '').split(/;\s*/)) {
    for (const { pattern, message: text } of named) {
      const [, name, said] = pattern.exec(part.trim()) ?? [];
      if (name !== undefined) {
        fields.push({ name, message: text(said ?? '') });
        break;
      }
    }
  }
  return fields;
}

/**
 * vRA refused a submitted request as invalid (400, e.g. code 10101 "Invalid
 * argument"): a template field the caller got wrong. The caller's mistake,
 * so BAD_USER_INPUT, with vRA's own code and message in `extensions.upstream`
 * and, where vRA names inputs, each in `extensions.fields`.
 */
export class RefusedRequestError extends UpstreamError {
  readonly code = 'BAD_USER_INPUT';
  constructor(cause: UpstreamStatusError) {
    const fields = refusedFields(cause.upstream.message);
    const said =
      fields.length > 0
        ? `: ${fields.map((field) => `${field.name} ${field.message}`).join('; ')}.`
        : cause.upstream.message === null
          ? '.'
          : `: ${cause.upstream.message.replace(prefix, '')}`;
    super('BAD_USER_INPUT', `The catalog service (vRA) refused the request${said}`, cause.upstream);
    if (fields.length > 0) this.extensions['fields'] = fields;
  }
}

/** A 400 of a submit becomes the caller's mistake; anything else stays as it was. */
export function asCallerMistake(error: unknown): unknown {
  return error instanceof UpstreamStatusError && error.status === 400
    ? new RefusedRequestError(error)
    : error;
}
