import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildXml,
  buildXmlSteps,
  childElement,
  element,
  maxXmlDepth,
  parseXml,
  parseXmlSteps,
  textElement,
  textOf,
  XmlError,
  type XmlElement,
} from '../../src/upstreams/nsx/xml/xml.ts';
import { billionLaughs } from '../helpers/nsx.ts';
import { outline } from '../helpers/xml.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/nsx/${name}`, import.meta.url), 'utf8');

describe('parseXml', () => {
  it('refuses a billion-laughs document before parsing it', () => {
    expect(() => parseXml(billionLaughs)).toThrow(XmlError);
    expect(() => parseXml(billionLaughs)).toThrow(/DOCTYPE or entity declaration/);
  });

  it('refuses a DOCTYPE and an entity declaration in any letter case', () => {
    expect(() => parseXml('<!doctype a><a/>')).toThrow(XmlError);
    expect(() => parseXml('<a><!ENTITY x "y"></a>')).toThrow(XmlError);
  });

  it.each([
    ['an unclosed element', '<list><ipset>'],
    ['mismatched tags', '<a><b></a>'],
    ['two root elements', '<a/><b/>'],
    ['text only', 'hello'],
    ['JSON', '{"list": []}'],
    ['an undeclared entity', '<a>&nbsp;</a>'],
    ['a bare ampersand', '<a>fish & chips</a>'],
    ['"<" in an attribute', '<a b="<"/>'],
    ['a reference to a character XML cannot carry', '<a>&#1;</a>'],
    ['a repeated attribute', '<a x="1" x="2"/>'],
    ['an empty body', ''],
  ])('refuses %s', (_what, document) => {
    expect(() => parseXml(document)).toThrow(XmlError);
  });

  it('decodes the predefined entities and character references, text and attributes alike', () => {
    const root = parseXml(
      '<a t="&quot;&lt;&amp;&gt;&apos;&#10;&#x263A;">&lt;b&gt; &amp;amp; &#233;</a>',
    );
    expect(root.attributes).toEqual({ t: '"<&>\'\n☺' });
    expect(textOf(root)).toBe('<b> &amp; é');
  });

  it('keeps CDATA content as it is', () => {
    expect(textOf(parseXml('<a><![CDATA[&lt; <raw> &]]></a>'))).toBe('&lt; <raw> &');
  });

  it('drops indentation between elements but keeps the text of a leaf exactly', () => {
    const root = parseXml('<a>\n  <name>  two  spaces  </name>\n  <blank>   </blank>\n</a>');
    expect(root.children).toEqual([
      element('name', {}, [{ text: '  two  spaces  ' }]),
      element('blank', {}, [{ text: '   ' }]),
    ]);
  });

  it('reads the vShield firewall configuration with every element and attribute in order', () => {
    const root = parseXml(fixture('vshield-app-firewall-config.xml'));
    const rule = childElement(root, 'firewallConfiguration')?.children[0] as XmlElement;
    expect(rule.name).toBe('layer3FirewallRule');
    expect(Object.keys(rule.attributes)).toEqual(['disabled', 'precedence', 'id']);
    expect(outline(root).slice(0, 8)).toEqual([
      '/VshieldAppConfiguration',
      '/VshieldAppConfiguration/firewallConfiguration',
      '/VshieldAppConfiguration/firewallConfiguration@contextId=datacenter-2',
      '/VshieldAppConfiguration/firewallConfiguration/layer3FirewallRule',
      '/VshieldAppConfiguration/firewallConfiguration/layer3FirewallRule@disabled=false',
      '/VshieldAppConfiguration/firewallConfiguration/layer3FirewallRule@precedence=high',
      '/VshieldAppConfiguration/firewallConfiguration/layer3FirewallRule@id=1003',
      '/VshieldAppConfiguration/firewallConfiguration/layer3FirewallRule/action',
    ]);
  });
});

describe('buildXml', () => {
  it('round-trips the reference firewall configuration without losing or moving anything', () => {
    for (const name of ['vshield-app-firewall-config.xml', 'vshield-app-firewall-config-doc.xml']) {
      const parsed = parseXml(fixture(name));
      const again = parseXml(buildXml(parsed, { declaration: true }));
      expect(again).toEqual(parsed);
      expect(outline(again)).toEqual(outline(parsed));
    }
  });

  it('round-trips the reference IP set list and error bodies', () => {
    for (const name of ['ipset-list.xml', 'application-list.xml', 'error-with-data.xml']) {
      const parsed = parseXml(fixture(name));
      expect(parseXml(buildXml(parsed))).toEqual(parsed);
    }
  });

  it('escapes every text and attribute value', () => {
    const xml = buildXml(
      element('ipset', { note: `a"b'c<d>&e\n\tf` }, [textElement('name', `<script>&"'`)]),
    );
    expect(xml).toBe(
      '<ipset note="a&quot;b&apos;c&lt;d&gt;&amp;e&#10;&#9;f"><name>&lt;script&gt;&amp;&quot;&apos;</name></ipset>',
    );
  });

  it('round-trips markup characters, line ends and non-ASCII exactly', () => {
    const values = ['<&>"\'', 'Zürich – 東京 🚀', 'line\r\nbreak\ttab', ' padded ', '&amp;'];
    for (const value of values) {
      const root = parseXml(buildXml(element('a', { v: value }, [textElement('t', value)])));
      expect(root.attributes['v']).toBe(value);
      expect(textOf(root.children[0] as XmlElement)).toBe(value);
    }
  });

  it('writes the XML declaration when asked', () => {
    expect(buildXml(element('a'), { declaration: true })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><a/>',
    );
  });

  it('refuses names and characters that would not make well-formed XML', () => {
    expect(() => buildXml(element('a b'))).toThrow(XmlError);
    expect(() => buildXml(element('a', { 'x"y': '1' }))).toThrow(XmlError);
    expect(() => buildXml(textElement('a', 'bell\u0007'))).toThrow(XmlError);
    expect(() => buildXml(element('a', { x: '\u0000' }))).toThrow(XmlError);
  });
});

describe('parseXml, more of the well-formedness it checks', () => {
  it.each([
    ['an end tag of another element', '<a><b></c></a>'],
    ['an end tag that only starts like the open one', '<ab></a>'],
    ['an end tag with more after its name', '<a></a x>'],
    ['an end tag with nothing open', '</a>'],
    ['a start tag cut short', '<a x="1"'],
    ['an attribute without quotes', '<a x=1/>'],
    ['attributes without space between them', '<a x="1"y="2"/>'],
    ['a "<" alone', '<a>< b</a>'],
    ['an unclosed comment', '<a><!-- no end</a>'],
    ['an unclosed CDATA section', '<a><![CDATA[ no end</a>'],
    ['text after the root', '<a/>tail'],
    ['a second root after the first', '<a></a><a></a>'],
  ])('refuses %s', (_what, document) => {
    expect(() => parseXml(document)).toThrow(XmlError);
  });

  it('skips comments and processing instructions, joining the text around them', () => {
    const root = parseXml(
      '<?xml version="1.0"?><!-- c --><a>fish<!-- x --> &amp; <?pi y?>chips</a>',
    );
    expect(root).toEqual(element('a', {}, [{ text: 'fish & chips' }]));
  });

  it('takes single-quoted attributes and whitespace around "=" and before ">"', () => {
    const root = parseXml(`<a x = 'one "1"' y="2" ></a >`);
    expect(root.attributes).toEqual({ x: 'one "1"', y: '2' });
  });

  it('refuses elements nested deeper than the limit, without running out of stack', () => {
    const deep = (n: number) => '<a>'.repeat(n) + '</a>'.repeat(n);
    expect(() => parseXml(deep(maxXmlDepth))).not.toThrow();
    expect(() => parseXml(deep(maxXmlDepth + 1))).toThrow(/nested deeper than 256/);
    expect(() => parseXml(deep(100_000))).toThrow(XmlError);
  });
});

describe('parseXmlSteps and buildXmlSteps', () => {
  const rule = (id: number) =>
    `<layer3FirewallRule id="${id}"><action>allow</action><notes>rule ${id} &amp; more</notes>` +
    `<source><address><ipAddress>10.0.${id % 250}.0/24</ipAddress></address></source></layer3FirewallRule>`;
  const large = `<VshieldAppConfiguration><firewallConfiguration contextId="c">${Array.from(
    { length: 2000 },
    (_, i) => rule(i),
  ).join('\n')}</firewallConfiguration></VshieldAppConfiguration>`;

  function run<T>(steps: Generator<void, T, void>): { value: T; pauses: number } {
    let pauses = 0;
    for (;;) {
      const step = steps.next();
      if (step.done === true) return { value: step.value, pauses };
      pauses++;
    }
  }

  it('parse a large document with many pauses into the tree parseXml answers', () => {
    const { value, pauses } = run(parseXmlSteps(large));
    expect(pauses).toBeGreaterThan(20);
    expect(buildXml(value)).toBe(buildXml(parseXml(large)));
    expect(childElement(value, 'firewallConfiguration')?.children).toHaveLength(2000);
  });

  it('build it with many pauses into the text buildXml answers', () => {
    const root = parseXml(large);
    const { value, pauses } = run(buildXmlSteps(root, { declaration: true }));
    expect(pauses).toBeGreaterThan(20);
    expect(value).toBe(buildXml(root, { declaration: true }));
    expect(buildXml(parseXml(value))).toBe(buildXml(root));
  });

  it('a small document takes one step', () => {
    expect(run(parseXmlSteps('<a><b>1</b></a>')).pauses).toBe(0);
    expect(run(buildXmlSteps(element('a'))).pauses).toBe(0);
  });
});
