import {
  errorCode,
  errorMessage,
  jsonErrorObject,
  noErrorFields,
  type ErrorFields,
} from '../../../http/error-fields.ts';

/**
 * Reads a vRA error body `{"errors":[{code, source, message, systemMessage, moreInfoUrl}]}`:
 * the first entry's code (as a string) and message. `systemMessage` is never
 * used: it may hold stack-ish text or a code prefix ("90135-...", docs/upstreams.md, vRA).
 */
export function readVraErrorBody(body: string, _contentType?: string): ErrorFields {
  const errors = jsonErrorObject(body)?.['errors'];
  const first: unknown = Array.isArray(errors) ? errors[0] : undefined;
  if (typeof first !== 'object' || first === null) return noErrorFields;
  const { code, message } = first as Record<string, unknown>;
  return { code: errorCode(code), message: errorMessage(message) };
}
