import { describe, expect, it } from 'vitest';
import {
  elementToJson,
  jsonToElement,
  sameJson,
  XmlJsonError,
} from '../../src/upstreams/nsx/xml/xml-json.ts';
import { buildXml, element, parseXml } from '../../src/upstreams/nsx/xml/xml.ts';

const json = (xml: string) => elementToJson(parseXml(xml));

describe('the FirewallRule JSON form of an element', () => {
  it('makes each child element a key and a text-only element a string', () => {
    expect(
      json(
        '<destination><address><containerId>dvportgroup-63</containerId></address><application><applicationSetId>application-161</applicationSetId></application></destination>',
      ),
    ).toEqual({
      address: { containerId: 'dvportgroup-63' },
      application: { applicationSetId: 'application-161' },
    });
  });

  it('makes a repeated element an array, in document order', () => {
    expect(
      json(
        '<source><address><containerId>ipset-3</containerId></address><exclude>false</exclude><address><ipAddress>10.9.9.0/24</ipAddress></address></source>',
      ),
    ).toEqual({
      address: [{ containerId: 'ipset-3' }, { ipAddress: '10.9.9.0/24' }],
      exclude: 'false',
    });
  });

  it('writes attributes as "@name" and the text beside them as "#text"', () => {
    expect(json('<type kind="portgroup">DistributedVirtualPortgroup</type>')).toEqual({
      '@kind': 'portgroup',
      '#text': 'DistributedVirtualPortgroup',
    });
    expect(json('<a x="1"><b>2</b>tail</a>')).toEqual({ '@x': '1', b: '2', '#text': 'tail' });
    expect(json('<a x="1"/>')).toEqual({ '@x': '1' });
  });

  it('makes an empty element an empty string', () => {
    expect(json('<source/>')).toBe('');
    expect(json('<source><address/></source>')).toEqual({ address: '' });
  });

  it('keeps markup characters and non-ASCII as they are', () => {
    expect(json('<a n="&lt;&amp;&quot;"><b>Zürich &amp; 東京</b></a>')).toEqual({
      '@n': '<&"',
      b: 'Zürich & 東京',
    });
  });
});

describe('the element of a FirewallRule JSON value', () => {
  it.each([
    ['', '<source/>'],
    [
      { address: { containerId: 'domain-c7' } },
      '<source><address><containerId>domain-c7</containerId></address></source>',
    ],
    [
      { address: [{ containerId: 'ipset-3' }, { ipAddress: '10.0.0.0/8' }] },
      '<source><address><containerId>ipset-3</containerId></address><address><ipAddress>10.0.0.0/8</ipAddress></address></source>',
    ],
    [{ '@kind': 'x"<', '#text': 'a&b' }, '<source kind="x&quot;&lt;">a&amp;b</source>'],
  ])('builds %j as %s', (value, xml) => {
    expect(buildXml(jsonToElement('source', value))).toBe(xml);
  });

  it('converts back to the same JSON, both ways', () => {
    const values: unknown[] = [
      { address: [{ containerId: 'ipset-3' }, { ipAddress: '10.9.9.0/24' }], exclude: 'false' },
      { '@kind': 'portgroup', '#text': 'DistributedVirtualPortgroup' },
      { application: { applicationSetId: 'application-161', '@note': 'é < ü' } },
      '',
      'only text',
    ];
    for (const value of values) {
      const xml = buildXml(jsonToElement('destination', value));
      expect(elementToJson(parseXml(xml))).toEqual(value);
    }
  });

  it('writes numbers and booleans as their text', () => {
    expect(buildXml(jsonToElement('a', { port: 443, exclude: false }))).toBe(
      '<a><port>443</port><exclude>false</exclude></a>',
    );
  });

  it.each([
    ['null', null, /null has no XML form/],
    ['an array at the top', ['a'], /needs a key/],
    ['nested arrays', { a: [['x']] }, /cannot be nested/],
    ['an element name with a space', { 'bad name': 'x' }, /not an XML element name/],
    ['an element name with markup', { 'a><b': 'x' }, /not an XML element name/],
    ['an attribute that is an object', { '@x': { y: '1' } }, /attribute must be a string/],
    ['text that is an object', { '#text': { y: '1' } }, /text must be a string/],
    ['a control character', { a: 'bell\u0007' }, /character XML cannot carry/],
    ['a reserved key', JSON.parse('{"__proto__": "x"}') as unknown, /not an XML element name/],
  ])('refuses %s, naming where', (_what, value, message) => {
    expect(() => jsonToElement('source', value)).toThrow(XmlJsonError);
    expect(() => jsonToElement('source', value)).toThrow(message);
  });

  it('names the path of the offending value', () => {
    try {
      jsonToElement('source', { address: [{ containerId: 'x' }, { ipAddress: null }] });
      expect.unreachable();
    } catch (error) {
      expect((error as XmlJsonError).path).toBe('source.address[1].ipAddress');
    }
  });
});

describe('sameJson', () => {
  it('tells whether a JSON value is what an element already says, whatever the key order', () => {
    const node = parseXml('<s><b>1</b><a x="2">t</a></s>');
    expect(sameJson(node, { a: { '#text': 't', '@x': '2' }, b: '1' })).toBe(true);
    expect(sameJson(node, { a: { '#text': 't', '@x': '3' }, b: '1' })).toBe(false);
    expect(sameJson(node, { b: '1' })).toBe(false);
  });
});

describe('the JSON form of a deeply nested element', () => {
  it('is built without recursion, whatever the depth', () => {
    let inner = element('leaf', {}, [{ text: 'x' }]);
    for (let level = 0; level < 100_000; level += 1) inner = element('a', {}, [inner]);
    let json = elementToJson(element('source', {}, [inner])) as Record<string, unknown>;
    let depth = 0;
    while (typeof json['a'] === 'object') {
      json = json['a'] as Record<string, unknown>;
      depth += 1;
    }
    expect(depth).toBe(100_000);
    expect(json).toEqual({ leaf: 'x' });
  });
});
