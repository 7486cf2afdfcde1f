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
