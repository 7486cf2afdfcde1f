/**
 * The vRO 7 error body is unconfirmed (docs/upstreams.md, vRO): any JSON or text
 * is opaque text. A JSON `message` is taken when there is one; of a markup
 * page (the 401 page is HTML) only its title; otherwise the first 200
 * characters of the body; vRO has no error code.
 */
export function readVroErrorBody(body: string): { code: null; message: string | null } {
  const text = body.trim();
  if (text === '') return { code: null, message: null };
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'message' in parsed) {
      const { message } = parsed;
      if (typeof message === 'string' && message.trim() !== '') {
        return { code: null, message: clip(message) };
      }
    }
  } catch {
    // not JSON: plain text
  }
  if (text.startsWith('<')) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
    return { code: null, message: title === undefined || title === '' ? null : clip(title) };
  }
  return { code: null, message: clip(text) };
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
