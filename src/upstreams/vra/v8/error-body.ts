import {
  errorCode,
  errorMessage,
  jsonErrorObject,
  noErrorFields,
  type ErrorFields,
} from '../../../http/error-fields.ts';

/**
 * Reads a vRA 8 error body: IaaS answers a `ServiceErrorResponse`
 * `{message, errorCode, statusCode, stackTrace, ...}` (vra-iaas.json); the
 * Service Broker and deployment services answer `{message, statusCode,
 * errorCode?}` in the same spirit. Only the code and message are taken:
 * `stackTrace` and `serverErrorId` never reach a client.
 */
export function readVra8ErrorBody(body: string, _contentType?: string): ErrorFields {
  const fields = jsonErrorObject(body);
  if (fields === undefined) return noErrorFields;
  return {
    code: errorCode(fields['errorCode'] ?? fields['messageId'], 100),
    message: errorMessage(fields['message']),
  };
}
