const maxMessageLength = 500;

/**
 * Reads a vRA 8 error body: IaaS answers a `ServiceErrorResponse`
 * `{message, errorCode, statusCode, stackTrace, ...}` (vra-iaas.json); the
 * Service Broker and deployment services answer `{message, statusCode,
 * errorCode?}` in the same spirit. Only the code and message are taken:
 * `stackTrace` and `serverErrorId` never reach a client.
 */
export function readVra8ErrorBody(
  body: string,
  _contentType?: string,
): { code: string | null; message: string | null } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body) as unknown;
  } catch {
    return { code: null, message: null };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { code: null, message: null };
  }
  const fields = parsed as Record<string, unknown>;
  const code = fields['errorCode'] ?? fields['messageId'];
  const message = fields['message'];
  return {
    code:
      typeof code === 'number' && Number.isFinite(code)
        ? String(code)
        : typeof code === 'string' && code.trim() !== ''
          ? code.trim().slice(0, 100)
          : null,
    message:
      typeof message === 'string' && message.trim() !== ''
        ? message.trim().slice(0, maxMessageLength)
        : null,
  };
}
