/**
 * NSX-T's error body (ApiError): `{"httpStatus": "PRECONDITION_FAILED",
 * "error_code": 602, "module_name": "common-services", "error_message":
 * "…"}`. Only its code and message are taken, never the body itself.
 */
import type { ErrorBodyReader } from '../../http/upstream-http.ts';
import { readNsxError } from '../nsx/error-xml.ts';
import { isJsonObject } from './wire.ts';

const longestMessage = 500;

export const readNsxtError: ErrorBodyReader = (body) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { code: null, message: null };
  }
  if (!isJsonObject(parsed)) return { code: null, message: null };
  const code = parsed['error_code'];
  const message = parsed['error_message'];
  return {
    code:
      typeof code === 'number' || (typeof code === 'string' && code.trim() !== '')
        ? String(code)
        : null,
    message:
      typeof message === 'string' && message.trim() !== ''
        ? message.trim().slice(0, longestMessage)
        : null,
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
