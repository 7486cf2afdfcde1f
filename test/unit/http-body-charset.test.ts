import { describe, expect, it } from 'vitest';
import {
  BodyCharsetError,
  declaredCharset,
  decodeBody,
  utf8Body,
} from '../../src/http/body-charset.ts';

const text = 'Zürich café ½ ñ';
const latin1 = Buffer.from(text, 'latin1');

describe('the charset an answer declares', () => {
  it('is UTF-8 when nothing declares one', () => {
    expect(declaredCharset(undefined, Buffer.from('{}'))).toBe('utf-8');
    expect(declaredCharset('application/json', Buffer.from('{}'))).toBe('utf-8');
  });

  it('is the charset parameter of Content-Type, quoted or not, in any case', () => {
    expect(declaredCharset('application/json; charset=ISO-8859-1', latin1)).toBe('iso-8859-1');
    expect(declaredCharset('text/xml;Charset="windows-1252"', latin1)).toBe('windows-1252');
  });

  it('is the encoding of an XML declaration when Content-Type names none', () => {
    const body = Buffer.from('<?xml version="1.0" encoding="windows-1252"?><a/>', 'latin1');
    expect(declaredCharset('application/xml', body)).toBe('windows-1252');
    expect(declaredCharset('application/xml; charset=utf-8', body)).toBe('utf-8');
  });

  it('is the byte order mark above all', () => {
    const bom = Buffer.from([0xff, 0xfe, 0x7b, 0x00]);
    expect(declaredCharset('application/json; charset=utf-8', bom)).toBe('utf-16le');
  });
});

describe('a body decoded in its declared charset', () => {
  it('reads ISO-8859-1 and windows-1252 (declared by header or by XML declaration) right', () => {
    expect(decodeBody(latin1, 'text/plain; charset=iso-8859-1', true)).toBe(text);
    const xml = Buffer.from(
      `<?xml version="1.0" encoding="windows-1252"?><n>${text} \x80</n>`,
      'latin1',
    );
    expect(decodeBody(xml, 'application/xml', true)).toContain(`<n>${text} €</n>`);
  });

  it('reads UTF-16 with its byte order mark, and drops a UTF-8 byte order mark', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`"${text}"`, 'utf16le')]);
    expect(decodeBody(utf16, 'application/json; charset=utf-16', true)).toBe(`"${text}"`);
    const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]);
    expect(decodeBody(utf8, 'application/json', true)).toBe('{"a":1}');
  });

  it('refuses a success body that is not valid UTF-8, and one in a charset no decoder knows', () => {
    const invalid = Buffer.from([0x7b, 0xc3, 0x28, 0x7d]);
    expect(() => decodeBody(invalid, 'application/json', true)).toThrow(
      new BodyCharsetError('a body that is not valid UTF-8'),
    );
    expect(() => decodeBody(latin1, 'application/xml; charset=utf-8', true)).toThrow(
      BodyCharsetError,
    );
    expect(() =>
      decodeBody(Buffer.from('{}'), 'application/json; charset=x-klingon', true),
    ).toThrow('a body in an unknown character set (x-klingon)');
    expect(() =>
      decodeBody(Buffer.from([0x81, 0x20]), 'text/plain; charset=shift_jis', true),
    ).toThrow('a body that is not valid shift_jis');
  });

  it('reads an error body leniently, with U+FFFD for what cannot be decoded', () => {
    expect(decodeBody(Buffer.from([0x61, 0xff, 0x62]), 'text/plain', false)).toBe('a\uFFFDb');
    expect(decodeBody(Buffer.from('oops'), 'text/plain; charset=x-klingon', false)).toBe('oops');
  });
});

describe('utf8Body', () => {
  it('answers a UTF-8 body as it came, without its byte order mark', () => {
    const body = Buffer.from('<a>é</a>');
    expect(utf8Body(body, 'application/xml')).toBe(body);
    const marked = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    expect(utf8Body(marked, undefined).equals(body)).toBe(true);
  });

  it('encodes a body in another declared charset as UTF-8', () => {
    const inLatin1 = Buffer.from('<a>é</a>', 'latin1');
    expect(utf8Body(inLatin1, 'text/xml; charset=ISO-8859-1').toString()).toBe('<a>é</a>');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<a>é</a>', 'utf16le')]);
    expect(utf8Body(utf16, undefined).toString()).toBe('<a>é</a>');
  });

  it('refuses bytes that are not valid in the declared charset, as decodeBody does', () => {
    const broken = Buffer.from([0x3c, 0x61, 0x3e, 0xc3, 0x3c, 0x2f, 0x61, 0x3e]);
    expect(() => utf8Body(broken, 'application/xml')).toThrow(BodyCharsetError);
    expect(() => utf8Body(broken, 'application/xml; charset=x-unknown')).toThrow(BodyCharsetError);
  });
});

describe('what declares a charset, and what only looks like it', () => {
  const declared = (contentType: string | undefined, body: Buffer | number[]): string =>
    declaredCharset(contentType, Buffer.from(body));

  it('takes each byte order mark over Content-Type and the XML declaration', () => {
    expect(declared('text/xml; charset=iso-8859-1', [0xef, 0xbb, 0xbf, 0x3c])).toBe('utf-8');
    expect(declared('text/xml; charset=iso-8859-1', [0xfe, 0xff, 0x00, 0x3c])).toBe('utf-16be');
    expect(declared('text/xml; charset=iso-8859-1', [0xff, 0xfe, 0x3c, 0x00])).toBe('utf-16le');
    const be = Buffer.concat([
      Buffer.from([0xfe, 0xff]),
      Buffer.from('<a>é</a>', 'utf16le').swap16(),
    ]);
    expect(decodeBody(be, undefined, true)).toBe('<a>é</a>');
  });

  it('takes no byte order mark from its first byte alone', () => {
    // each starts like a mark, and is not one
    for (const body of [
      [0xef, 0xbb, 0x41],
      [0xef, 0x41, 0xbf],
      [0xfe, 0x41],
      [0xff, 0x41],
    ]) {
      expect(declared('text/plain; charset=windows-1252', body)).toBe('windows-1252');
      expect(declared(undefined, body)).toBe('utf-8');
    }
  });

  it('keeps characters whose UTF-8 bytes are partly those of a byte order mark', () => {
    // U+AEFF is EA BB BF, U+FF3F EF BC BF, U+FEC0 EF BB 80, "a¿" 61 C2 BF
    for (const text of ['\uAEFF', '\uFF3F', '\uFEC0', 'a¿']) {
      const body = Buffer.from(text);
      expect(decodeBody(body, 'text/plain', true)).toBe(text);
      expect(utf8Body(body, 'text/plain').toString()).toBe(text);
    }
  });

  it('reads the charset parameter trimmed, and passes over an empty one', () => {
    expect(declared('text/xml; charset=" Windows-1252 "', [0x3c])).toBe('windows-1252');
    const xml = Buffer.from('<?xml version="1.0" encoding="windows-1252"?><a/>');
    expect(declaredCharset('text/xml; charset=""', xml)).toBe('windows-1252');
    expect(declaredCharset('text/xml; charset=" "', xml)).toBe('windows-1252');
  });

  it('reads a charset parameter after any spaces, and not one named otherwise', () => {
    expect(declared('text/plain ;  charset = "latin1"', [0x61])).toBe('latin1');
    expect(declared('text/plain;charset=koi8-r;format=flowed', [0x61])).toBe('koi8-r');
    expect(declared('text/plain; xcharset=koi8-r', [0x61])).toBe('utf-8');
    expect(declared('text/plain; charset="a;b"', [0x61])).toBe('a;b');
  });

  it('reads an XML declaration only at the very start, within its first 256 bytes', () => {
    const at = (text: string): string => declaredCharset('application/xml', Buffer.from(text));
    expect(at('<?xml version="1.0"?><a/>')).toBe('utf-8');
    expect(at("<?xml version='1.0' encoding='KOI8-R'?><a/>")).toBe('koi8-r');
    expect(at('<?xml\tversion="1.0"\n encoding = "latin1"?><a/>')).toBe('latin1');
    expect(at('<?pi x?><?xml version="1.0" encoding="latin1"?><a/>')).toBe('utf-8');
    expect(at(' <?xml version="1.0" encoding="latin1"?><a/>')).toBe('utf-8');
    expect(at('<?xmlx encoding="latin1"?><a/>')).toBe('utf-8');
    expect(at('<?xml version="1.0"?><a encoding="latin1"/>')).toBe('utf-8');
    expect(at('<?xml version="1.0" myencoding="latin1"?><a/>')).toBe('utf-8');
    expect(at('<?xml version="1.0" encoding="latin 1"?><a/>')).toBe('utf-8');
    expect(at('<?xml version="1.0" encoding=latin1?><a/>')).toBe('utf-8');
    const far = `<?xml version="1.0"${' '.repeat(250)} encoding="latin1"?><a/>`;
    expect(at(far)).toBe('utf-8');
    // a view into a larger buffer reads no further than its own bytes
    const pooled = Buffer.from('<?xml version="1.0" encoding="latin1"?><a/>');
    expect(declaredCharset('application/xml', pooled.subarray(0, 20))).toBe('utf-8');
  });

  it('answers a body labelled utf8 as it came', () => {
    const body = Buffer.from('<a>é</a>');
    expect(utf8Body(body, 'application/xml; charset=utf8')).toBe(body);
    expect(utf8Body(body, 'application/xml; charset=UTF-8')).toBe(body);
    const invalid = Buffer.from([0x7b, 0xc3, 0x28, 0x7d]);
    expect(() => decodeBody(invalid, 'application/json; charset=utf8', true)).toThrow(
      new BodyCharsetError('a body that is not valid UTF-8'),
    );
    expect(() => utf8Body(invalid, 'application/json; charset=utf8')).toThrow(
      new BodyCharsetError('a body that is not valid UTF-8'),
    );
  });

  it('names an unknown charset in at most 40 characters, and is a BodyCharsetError by name', () => {
    const label = 'x-'.padEnd(100, 'y');
    let caught: unknown;
    try {
      decodeBody(Buffer.from('{}'), `application/json; charset=${label}`, true);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(BodyCharsetError);
    expect((caught as Error).name).toBe('BodyCharsetError');
    expect((caught as Error).message).toBe(
      `a body in an unknown character set (${label.slice(0, 40)})`,
    );
  });
});
