/**
 * NSX-T's error body (ApiError): `{"httpStatus": "PRECONDITION_FAILED",
 * "error_code": 602, "module_name": "common-services", "error_message":
 * "…"}`. Only its code and message are taken, never the body itself.
 */
import { errorMessage, jsonErrorObject, noErrorFields } from '../../../http/error-fields.ts';
import type { ErrorBodyReader } from '../../../http/upstream-http.ts';
import { readNsxError } from '../error-xml.ts';

export const readNsxtError: ErrorBodyReader = (body) => {
  const parsed = jsonErrorObject(body);
  if (parsed === undefined) return noErrorFields;
  const code = parsed['error_code'];
  return {
    code:
      typeof code === 'number' || (typeof code === 'string' && code.trim() !== '')
        ? String(code)
        : null,
    message: errorMessage(parsed['error_message']),
  };
};

/**
 * One seam serves both generations of the manager: a JSON error body is
 * NSX-T's, anything else NSX-v's XML (`<error><errorCode/>…`).
 */
export const readNsxAnyError: ErrorBodyReader = (body, contentType) => {
  const json =
    contentType?.toLowerCase().includes('json') === true || body.trimStart().startsWith('{');
  return json ? readNsxtError(body, contentType) : readNsxError(body, contentType);
};
