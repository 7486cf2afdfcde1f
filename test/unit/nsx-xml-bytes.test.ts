import { describe, expect, it } from 'vitest';
import { buildXml, parseXml } from '../../src/upstreams/nsx/xml/xml.ts';

/**
 * What the parser made of each document when it read text (before it read
 * bytes): the document it builds back, or why it refuses; read whole, and
 * read lazily below the root. The parser now reads every tag and reference
 * off the bytes and must answer alike, but for the two rows marked below,
 * where the text form was more lenient than XML allows.
 */
const asBefore: ReadonlyArray<readonly [document: string, whole: string, lazy: string]> = [
  ['<a x="1" y=\'2\'/>', '<a x="1" y="2"/>', '<a x="1" y="2"/>'],
  ['<a x = "1"\ty=\n"2" ></a>', '<a x="1" y="2"/>', '<a x="1" y="2"/>'],
  [
    '<a\u00a0x="1"/>',
    'refused: "a\u00a0x="1"" is not an accepted element name',
    'refused: "a\u00a0x="1"" is not an accepted element name',
  ],
  // XML's white space is four characters: a no-break space neither parts two
  // attributes nor starts a name (the text form took it as a space)
  [
    '<a \u00a0x="1"/>',
    'refused: "\u00a0x" is not an accepted attribute name',
    'refused: "\u00a0x" is not an accepted attribute name',
  ],
  [
    '<a x="1"\u00a0y="2"/>',
    'refused: not well-formed XML (a broken start tag <a>)',
    'refused: not well-formed XML (a broken start tag <a>)',
  ],
  [
    '<a\u000bx="1"/>',
    'refused: "a\u000bx="1"" is not an accepted element name',
    'refused: "a\u000bx="1"" is not an accepted element name',
  ],
  [
    '<a x="1"\u000b/>',
    'refused: not well-formed XML (a broken start tag <a>)',
    'refused: not well-formed XML (a broken start tag <a>)',
  ],
  [
    '<a x=1/>',
    'refused: not well-formed XML (a broken start tag <a>)',
    'refused: not well-formed XML (a broken start tag <a>)',
  ],
  [
    '<a x"y="1"/>',
    'refused: "x"y" is not an accepted attribute name',
    'refused: "x"y" is not an accepted attribute name',
  ],
  [
    '<a x="1" x="2"/>',
    'refused: not well-formed XML (the attribute "x" twice)',
    'refused: not well-formed XML (the attribute "x" twice)',
  ],
  ['<a x="1>2"/>', '<a x="1&gt;2"/>', '<a x="1&gt;2"/>'],
  ['<a x="<"/>', 'refused: "<" in an attribute value', 'refused: "<" in an attribute value'],
  [
    '<a x="1"y="2"/>',
    'refused: not well-formed XML (a broken start tag <a>)',
    'refused: not well-formed XML (a broken start tag <a>)',
  ],
  [
    '<a x="1" / >',
    'refused: not well-formed XML (a broken start tag <a>)',
    'refused: not well-formed XML (a broken start tag <a>)',
  ],
  [
    '<a x="\u00e9 &amp; &#233; &#x41;"/>',
    '<a x="\u00e9 &amp; \u00e9 A"/>',
    '<a x="\u00e9 &amp; \u00e9 A"/>',
  ],
  [
    '<a \u00e9="1"/>',
    'refused: "\u00e9" is not an accepted attribute name',
    'refused: "\u00e9" is not an accepted attribute name',
  ],
  [
    '<a x="1',
    'refused: not well-formed XML (a broken start tag <a>)',
    'refused: not well-formed XML (a broken start tag <a>)',
  ],
  [
    '<a><b c="&bogus;"/></a>',
    'refused: undeclared entity &bogus;',
    'refused: undeclared entity &bogus;',
  ],
  ['<r><a><b>&#X41;</b></a></r>', 'refused: a bare "&" in text', 'refused: a bare "&" in text'],
  [
    '<r><a><b>&#12345678;</b></a></r>',
    'refused: a bare "&" in text',
    'refused: a bare "&" in text',
  ],
  [
    '<r><a><b>&#0;</b></a></r>',
    'refused: character reference &#0;',
    'refused: character reference &#0;',
  ],
  [
    '<r><a><b>&#xD800;</b></a></r>',
    'refused: character reference &#xD800;',
    'refused: character reference &#xD800;',
  ],
  [
    '<r><a><b>&#xFFFE;</b></a></r>',
    'refused: character reference &#xFFFE;',
    'refused: character reference &#xFFFE;',
  ],
  [
    '<r><a><b>&#x10FFFF; &#9; &lt;&gt;&amp;&quot;&apos;</b></a></r>',
    '<r><a><b>\udbff\udfff &#9; &lt;&gt;&amp;&quot;&apos;</b></a></r>',
    '<r><a><b>&#x10FFFF; &#9; &lt;&gt;&amp;&quot;&apos;</b></a></r>',
  ],
  [
    '<r><a><b>&undeclared;</b></a></r>',
    'refused: undeclared entity &undeclared;',
    'refused: undeclared entity &undeclared;',
  ],
  ['<r><a><b>a & b</b></a></r>', 'refused: a bare "&" in text', 'refused: a bare "&" in text'],
  ['<r><a><b>&amp</b></a></r>', 'refused: a bare "&" in text', 'refused: a bare "&" in text'],
  ['<r><a><b>&;</b></a></r>', 'refused: a bare "&" in text', 'refused: a bare "&" in text'],
  [
    '<r><a><b x="&#x1F600;">\u00e9\u4e2d</b></a></r>',
    '<r><a><b x="\ud83d\ude00">\u00e9\u4e2d</b></a></r>',
    '<r><a><b x="&#x1F600;">\u00e9\u4e2d</b></a></r>',
  ],
  ['<r><a  ><b/></a ></r>', '<r><a><b/></a></r>', '<r><a  ><b/></a ></r>'],
  [
    '<r><a></a\u00a0></r>',
    'refused: not well-formed XML (an end tag that does not close <a>)',
    'refused: not well-formed XML (an end tag that does not close <a>)',
  ],
  [
    '<r><a></ab></r>',
    'refused: not well-formed XML (an end tag that does not close <a>)',
    'refused: not well-formed XML (an end tag that does not close <a>)',
  ],
  [
    '<!DOCTYPE r><r/>',
    'refused: a DOCTYPE or entity declaration is refused',
    'refused: a DOCTYPE or entity declaration is refused',
  ],
  [
    '<r><!doctype x></r>',
    'refused: a DOCTYPE or entity declaration is refused',
    'refused: a DOCTYPE or entity declaration is refused',
  ],
  [
    '<r><!EnTiTy x></r>',
    'refused: a DOCTYPE or entity declaration is refused',
    'refused: a DOCTYPE or entity declaration is refused',
  ],
  ['\ufeff<r/>', '<r/>', '<r/>'],
  ['<r/>\u00a0', '<r/>', '<r/>'],
  ['<r><![CDATA[x<y]]></r>', '<r>x&lt;y</r>', '<r>x&lt;y</r>'],
  ['<?xml version="1.0"?><r><!-- c --><?pi x?>t</r>', '<r>t</r>', '<r>t</r>'],
  [
    '<r a="1" b=\'x"y\' c="x\'y">text &amp; more<s/>tail</r>',
    '<r a="1" b="x&quot;y" c="x&apos;y">text &amp; more<s/>tail</r>',
    '<r a="1" b="x&quot;y" c="x&apos;y">text &amp; more<s/>tail</r>',
  ],
  [
    '<r><a><b>\u0001</b></a></r>',
    'build refused: a character XML 1.0 cannot carry',
    'build refused: a character XML 1.0 cannot carry',
  ],
  ['<a b:c="1" xmlns:b="u"/>', '<a b:c="1" xmlns:b="u"/>', '<a b:c="1" xmlns:b="u"/>'],
  ['<r><x:y/></r>', '<r><x:y/></r>', '<r><x:y/></r>'],
  [
    '<r><a/><a/></r><b/>',
    'refused: a document has exactly one root element',
    'refused: a document has exactly one root element',
  ],
];

function outcome(document: string | Uint8Array, lazy: boolean): string {
  let tree;
  try {
    tree = parseXml(document, lazy ? { lazyDepth: 1 } : {});
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
  try {
    return buildXml(tree);
  } catch (error) {
    return `build refused: ${(error as Error).message}`;
  }
}

describe('parseXml on bytes', () => {
  it.each(asBefore)('reads %j as the text parser did', (document, whole, lazy) => {
    const bytes = Buffer.from(document);
    expect(outcome(bytes, false)).toBe(whole);
    expect(outcome(bytes, true)).toBe(lazy);
    expect(outcome(document, false)).toBe(whole);
    expect(outcome(document, true)).toBe(lazy);
  });

  it('refuses bytes that are not UTF-8, and a text with a lone surrogate', () => {
    expect(() => parseXml(Buffer.from([0x3c, 0x61, 0x3e, 0xff, 0x3c, 0x2f, 0x61, 0x3e]))).toThrow(
      'not valid UTF-8',
    );
    expect(() => parseXml('<a>\ud800</a>')).toThrow('a character XML 1.0 cannot carry');
  });

  it('reads a view into a larger buffer from its own offset', () => {
    const whole = Buffer.from('xx<a b="1">t</a>yy');
    expect(buildXml(parseXml(whole.subarray(2, whole.length - 2)))).toBe('<a b="1">t</a>');
  });
});
