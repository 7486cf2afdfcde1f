const maxMessageLength = 500;

/**
 * Reads a vRA error body `{"errors":[{code, source, message, systemMessage, moreInfoUrl}]}`:
 * the first entry's code (as a string) and message. `systemMessage` is never
 * used: it may hold stack-ish text or a code prefix ("90135-...", docs/upstreams.md, vRA).
 */
export function readVraErrorBody(
  body: string,
  _contentType?: string,
): { code: string | null; message: string | null } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body) as unknown;
  } catch {
    return { code: null, message: null };
  }
  if (typeof parsed !== 'object' || parsed === null || !('errors' in parsed)) {
    return { code: null, message: null };
  }
  const errors = parsed.errors;
  const first: unknown = Array.isArray(errors) ? errors[0] : undefined;
  if (typeof first !== 'object' || first === null) return { code: null, message: null };
  const code = 'code' in first ? first.code : undefined;
  const message = 'message' in first ? first.message : undefined;
  return {
    code:
      typeof code === 'number' && Number.isFinite(code)
        ? String(code)
        : typeof code === 'string' && code.trim() !== ''
          ? code.trim()
          : null,
    message:
      typeof message === 'string' && message.trim() !== ''
        ? message.trim().slice(0, maxMessageLength)
        : null,
  };
}
