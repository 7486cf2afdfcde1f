import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { releaseBuffer } from '../../src/http/release-buffer.ts';
import {
  firewallParseOptions,
  insertRule,
  readFirewallConfig,
  readRules,
  readRulesSteps,
  ruleXml,
} from '../../src/upstreams/nsx/v/firewall-xml.ts';
import type { FirewallRuleRecord } from '../../src/upstreams/nsx/wire.ts';
import { buildXmlBytesInSlices, inSlices } from '../../src/upstreams/nsx/xml/xml-slices.ts';
import {
  buildXml,
  childElement,
  parseXml,
  withChildren,
  XmlError,
  type XmlElement,
} from '../../src/upstreams/nsx/xml/xml.ts';
import { newRuleDraft } from '../helpers/nsx.ts';
import { outline, turnsDuring } from '../helpers/xml.ts';

const firewall = readFileSync(
  new URL('../fixtures/nsx/vshield-app-firewall-config.xml', import.meta.url),
  'utf8',
);

const lazily = (document: string, depth = 2): XmlElement =>
  parseXml(document, { lazyDepth: depth });

/** A rule written as a manager might: single quotes, spacing, a reference, an empty element. */
const oddRule = `<layer3FirewallRule  id='7' disabled="false" precedence="default" >
      <action>allow</action><notes>web &amp; app &#x41;</notes>
      <source><exclude>false</exclude></source><destination />
    </layer3FirewallRule>`;
const odd = `<VshieldAppConfiguration><firewallConfiguration contextId="c">
    ${oddRule}
  </firewallConfiguration></VshieldAppConfiguration>`;

describe('parseXml with lazyDepth', () => {
  it('reads the same elements, attributes and texts as a whole parse, children when asked for', () => {
    expect(outline(lazily(firewall))).toEqual(outline(parseXml(firewall)));
    expect(outline(lazily(odd))).toEqual(outline(parseXml(odd)));
    expect(outline(lazily(firewall, 1))).toEqual(outline(parseXml(firewall)));
  });

  it.each([
    ['an end tag of another element', '<a><b></c></a>'],
    ['an end tag with nothing open', '</a>'],
    ['an undeclared entity', '<a>&nbsp;</a>'],
    ['a bare "&"', '<a>fish & chips</a>'],
    ['a character reference XML cannot carry', '<a>&#1;</a>'],
    ['an attribute twice', '<a x="1" x="2"/>'],
    ['a "<" in an attribute value', '<a x="<"/>'],
    ['an attribute named __proto__', '<a __proto__="1"/>'],
    ['an element that is not a name', '<a><1b/></a>'],
    ['an unclosed CDATA section', '<a><![CDATA[ no end</a>'],
    ['an unclosed element', '<a><b>'],
    ['a DOCTYPE', '<!DOCTYPE a><a/>'],
  ])('refuses %s inside an element read lazily, as a whole parse does', (_what, inner) => {
    const document = `<r><list><item>${inner}</item></list></r>`;
    expect(() => parseXml(document)).toThrow(XmlError);
    expect(() => lazily(document, 2)).toThrow(XmlError);
    expect(() => lazily(document, 3)).toThrow(XmlError);
  });
});

describe('buildXml of a lazily read document', () => {
  it('writes an untouched lazy element back exactly as it stood, and an edited one afresh', () => {
    const root = lazily(odd);
    const written = buildXml(root, { declaration: true });
    expect(written).toContain(oddRule);
    const configuration = childElement(root, 'firewallConfiguration') as XmlElement;
    const rule = configuration.children[0] as XmlElement;
    const edited = withChildren(root, [
      withChildren(configuration, [withChildren(rule, rule.children.slice(0, 1))]),
    ]);
    expect(buildXml(edited)).toBe(
      '<VshieldAppConfiguration><firewallConfiguration contextId="c"><layer3FirewallRule id="7" disabled="false" precedence="default"><action>allow</action></layer3FirewallRule></firewallConfiguration></VshieldAppConfiguration>',
    );
  });

  it('refuses to write back a lazy element holding a character XML cannot carry, as for any element', () => {
    const document = '<r><list><item>\u0001</item></list></r>';
    expect(() => buildXml(parseXml(document))).toThrow(XmlError);
    expect(() => buildXml(lazily(document))).toThrow(XmlError);
  });
});

describe('a firewall configuration read lazily', () => {
  it('reads ids and layers at once, and types each rule only when asked for', async () => {
    const config = readFirewallConfig(parseXml(firewall, firewallParseOptions), 'c', '1');
    expect([...config.ruleIndex].map((rule) => [rule.id, rule.layer])).toEqual([
      ['1003', 'LAYER3'],
      ['1001', 'LAYER3'],
      ['1002', 'LAYER2'],
    ]);
    const typed = (rules: FirewallRuleRecord[]) =>
      rules.map(({ xml, source, destination, service, ...fields }) => ({
        ...fields,
        parts: [xml, source, destination, service].map((part) => part && outline(part)),
      }));
    const whole = readRules(readFirewallConfig(parseXml(firewall), 'c', '1'));
    expect(typed(await inSlices(readRulesSteps(config)))).toEqual(typed(whole));
  });

  it('takes a new rule with every other rule posted back exactly as the manager sent it', () => {
    const config = readFirewallConfig(parseXml(odd, firewallParseOptions), 'c', '1');
    const written = buildXml(insertRule(config.document, ruleXml(newRuleDraft('new')), 0));
    expect(written).toContain(
      `<layer3FirewallRule disabled="false" precedence="default"><action>deny</action><logged>false</logged><notes>new</notes></layer3FirewallRule>${oddRule}`,
    );
  });
});

describe('buildXmlBytesInSlices', () => {
  it('answers the UTF-8 bytes of what buildXml writes, a large document over several turns', async () => {
    const large = parseXml(
      `<list>${Array.from({ length: 20_000 }, (_, i) => `<set id="${i}"><name>s ${i} é</name><value>10.0.0.${i % 250}</value></set>`).join('')}</list>`,
    );
    const { value: bytes, turns } = await turnsDuring(() =>
      buildXmlBytesInSlices(large, { declaration: true }),
    );
    expect(turns).toBeGreaterThan(1);
    expect(bytes.toString('utf8')).toBe(buildXml(large, { declaration: true }));
  });
});

describe('releaseBuffer', () => {
  it('frees a buffer that alone holds its memory, and leaves a slice or a pooled buffer alone', () => {
    const own = Buffer.concat([Buffer.alloc(100_000, 1), Buffer.alloc(100_000, 2)]);
    releaseBuffer(own);
    expect(own.length).toBe(0);

    const whole = Buffer.alloc(200_000, 3);
    const slice = whole.subarray(10, 20);
    releaseBuffer(slice);
    expect(slice.length).toBe(10);
    expect(whole.length).toBe(200_000);

    const pooled = Buffer.from('small');
    const neighbour = Buffer.from('other');
    releaseBuffer(pooled);
    expect(pooled.toString()).toBe('small');
    expect(neighbour.toString()).toBe('other');
  });
});
