/**
 * An answer's bytes as text, in the character set the answer declares. The
 * declaration is, first to last: a byte order mark, the `charset` of
 * Content-Type, the `encoding` of an XML declaration (RFC 7303); none means
 * UTF-8 (RFC 8259 for JSON). Every label of the WHATWG Encoding standard is
 * decoded (`ISO-8859-1` as `windows-1252`, as browsers do). Bytes are never
 * guessed at: a body NSX would get back after an edit must not come back
 * altered.
 */
import { isUtf8 } from 'node:buffer';

/** Why a body could not be read as text. */
export class BodyCharsetError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'BodyCharsetError';
  }
}

const boms: ReadonlyArray<{ bytes: readonly number[]; charset: string }> = [
  { bytes: [0xef, 0xbb, 0xbf], charset: 'utf-8' },
  { bytes: [0xfe, 0xff], charset: 'utf-16be' },
  { bytes: [0xff, 0xfe], charset: 'utf-16le' },
];

const charsetParameter = /;\s*charset\s*=\s*(?:"([^"]*)"|([^\s;]+))/i;
const xmlDeclaration = /^<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/;

/** The character set label the answer declares for its body; `utf-8` when it declares none. */
export function declaredCharset(contentType: string | undefined, body: Uint8Array): string {
  // every byte order mark starts with one of these
  const first = body[0];
  if (first === 0xef || first === 0xfe || first === 0xff) {
    const bom = boms.find(({ bytes }) => bytes.every((byte, i) => body[i] === byte));
    if (bom !== undefined) return bom.charset;
  }
  // a parameter follows a `;`
  const match =
    contentType === undefined || !contentType.includes(';')
      ? null
      : charsetParameter.exec(contentType);
  const label = match?.[1] ?? match?.[2];
  if (label !== undefined && label.trim() !== '') return label.trim().toLowerCase();
  // An XML declaration is ASCII in every encoding an NSX manager would use.
  if (body[0] === 0x3c && body[1] === 0x3f) {
    const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 256));
    const encoding = xmlDeclaration.exec(head.toString('latin1'))?.[1];
    if (encoding !== undefined) return encoding.toLowerCase();
  }
  return 'utf-8';
}

/**
 * The body as UTF-8 bytes, checked as `decodeBody` checks a success answer's:
 * a UTF-8 body is answered as it came (without its byte order mark), one in
 * another character set is decoded and encoded again. Throws BodyCharsetError.
 */
export function utf8Body(body: Buffer, contentType: string | undefined): Buffer {
  const charset = declaredCharset(contentType, body);
  if (charset !== 'utf-8' && charset !== 'utf8')
    return Buffer.from(decodeBody(body, contentType, true));
  if (!isUtf8(body)) throw new BodyCharsetError('a body that is not valid UTF-8');
  return body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? body.subarray(3) : body;
}

/**
 * The body as text. `strict` (a success answer, whose content is used):
 * bytes that are not valid in the declared charset, or a charset no decoder
 * knows, throw BodyCharsetError. Otherwise (an error answer, of which only a
 * code and message are shown) they become U+FFFD, so that the status still
 * tells what happened.
 */
export function decodeBody(body: Buffer, contentType: string | undefined, strict: boolean): string {
  const charset = declaredCharset(contentType, body);
  if (charset === 'utf-8' || charset === 'utf8') {
    // The common case, kept fast: one validation pass, then Node's own decoder.
    const start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
    if (strict && !isUtf8(body)) throw new BodyCharsetError('a body that is not valid UTF-8');
    return body.toString('utf8', start);
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: strict });
  } catch {
    if (strict)
      throw new BodyCharsetError(`a body in an unknown character set (${charset.slice(0, 40)})`);
    return new TextDecoder('utf-8').decode(body);
  }
  try {
    return decoder.decode(body);
  } catch {
    throw new BodyCharsetError(`a body that is not valid ${decoder.encoding}`);
  }
}
