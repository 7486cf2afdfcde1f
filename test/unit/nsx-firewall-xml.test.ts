import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RuleDraft } from '../../src/upstreams/nsx/drafts.ts';
import {
  firewallParseOptions,
  generationFromEtag,
  insertRule,
  readFirewallConfig,
  readRules,
  removeRule,
  replaceAllRules,
  replaceRule,
  ruleXml,
} from '../../src/upstreams/nsx/v/firewall-xml.ts';
import type { FirewallConfigRecord } from '../../src/upstreams/nsx/wire.ts';
import { jsonToElement } from '../../src/upstreams/nsx/xml/xml-json.ts';
import {
  buildXml,
  childElements,
  parseXml,
  type XmlElement,
} from '../../src/upstreams/nsx/xml/xml.ts';
import { outline } from '../helpers/xml.ts';

const reference = readFileSync(
  new URL('../fixtures/nsx/vshield-app-firewall-config.xml', import.meta.url),
  'utf8',
);

/** A configuration with unmodelled parts: an extra child of the configuration, a rule with extra children and attributes. */
const rich = `<VshieldAppConfiguration version="5.5">
  <firewallConfiguration contextId="dvportgroup-63" owner="ops">
    <globalSettings><tcpStrict>true</tcpStrict></globalSettings>
    <layer3FirewallRule managedBy="ops" disabled="false" precedence="default" id="1004">
      <sectionId>1007</sectionId>
      <action>deny</action>
      <logged>false</logged>
      <notes>old</notes>
      <source>
        <address><containerId>ipset-3</containerId></address>
        <exclude>false</exclude>
        <address><ipAddress>10.9.9.0/24</ipAddress></address>
      </source>
      <appliedToList><appliedTo><value>dvportgroup-63</value></appliedTo></appliedToList>
    </layer3FirewallRule>
    <layer3FirewallRule disabled="false" precedence="default" id="1001">
      <action>allow</action>
      <logged>false</logged>
      <notes/>
      <source/>
      <destination/>
    </layer3FirewallRule>
    <layer2FirewallRule disabled="false" precedence="default" id="1002">
      <action>allow</action>
      <logged>false</logged>
      <notes/>
      <destination/>
    </layer2FirewallRule>
  </firewallConfiguration>
</VshieldAppConfiguration>`;

/** A configuration as the client reads one off the wire. */
const config = (xml: string): FirewallConfigRecord =>
  readFirewallConfig(parseXml(xml, firewallParseOptions), 'dvportgroup-63', '7');

const draft = (fields: Partial<RuleDraft> = {}): RuleDraft => ({
  id: undefined,
  layer: 'LAYER3',
  action: 'allow',
  disabled: false,
  logged: false,
  precedence: 'default',
  notes: undefined,
  source: undefined,
  destination: undefined,
  service: undefined,
  ...fields,
});

const configurationOf = (document: XmlElement) =>
  childElements(document, 'firewallConfiguration')[0] as XmlElement;

const ids = (document: XmlElement) =>
  childElements(configurationOf(document)).map((node) => node.attributes['id'] ?? node.name);

describe('readFirewallConfig', () => {
  it('types every rule of the reference configuration, in document order', () => {
    const rules = readRules(config(reference));
    expect(
      rules.map((r) => [r.id, r.layer, r.action, r.disabled, r.logged, r.precedence, r.notes]),
    ).toEqual([
      ['1003', 'LAYER3', 'allow', false, true, 'high', 'web tier to app tier'],
      ['1001', 'LAYER3', 'allow', false, false, 'default', ''],
      ['1002', 'LAYER2', 'allow', false, false, 'default', ''],
    ]);
    expect(rules[0]?.source?.name).toBe('source');
    expect(rules[2]?.source).toBeNull();
  });

  it('refuses a rule without action and a document of another kind', () => {
    expect(() =>
      readRules(
        config(
          '<VshieldAppConfiguration><firewallConfiguration><layer3FirewallRule/></firewallConfiguration></VshieldAppConfiguration>',
        ),
      ),
    ).toThrow(/without <action>/);
    expect(() => config('<list/>')).toThrow(/<VshieldAppConfiguration> expected/);
    expect(() => config('<VshieldAppConfiguration/>')).toThrow(/without <firewallConfiguration>/);
  });

  it('refuses disabled or logged values that are not booleans', () => {
    expect(() =>
      readRules(
        config(
          '<VshieldAppConfiguration><firewallConfiguration><layer3FirewallRule disabled="maybe"><action>allow</action></layer3FirewallRule></firewallConfiguration></VshieldAppConfiguration>',
        ),
      ),
    ).toThrow(/neither true nor false/);
  });
});

describe('generationFromEtag', () => {
  it.each([
    ['"1312802020950"', '1312802020950'],
    ['1312802020950', '1312802020950'],
    ['W/"42"', '42'],
    [' "42" ', '42'],
  ])('reads %s as %s', (etag, generation) => {
    expect(generationFromEtag(etag)).toBe(generation);
  });

  it('refuses a missing or strange ETag as a bad response', () => {
    expect(() => generationFromEtag(undefined)).toThrow(/without ETag/);
    expect(() => generationFromEtag('""')).toThrow(/without ETag/);
    expect(() => generationFromEtag('"a b"')).toThrow(/not a generation number/);
  });
});

describe('ruleXml', () => {
  it('writes a new rule in the order of the vShield guide, without id', () => {
    const rule = ruleXml(
      draft({
        action: 'deny',
        logged: true,
        notes: 'n <&>',
        source: {
          json: { address: { containerId: 'ipset-3' } },
          xml: jsonToElement('source', { address: { containerId: 'ipset-3' } }),
        },
      }),
    );
    expect(buildXml(rule)).toBe(
      '<layer3FirewallRule disabled="false" precedence="default"><action>deny</action><logged>true</logged><notes>n &lt;&amp;&gt;</notes><source><address><containerId>ipset-3</containerId></address></source></layer3FirewallRule>',
    );
  });

  it('writes over an existing rule keeping its unmodelled children and attributes in place', () => {
    const current = readRules(config(rich))[0];
    const rule = ruleXml(
      draft({ id: '1004', action: 'allow', logged: true, disabled: true, notes: 'new' }),
      current,
    );
    expect(buildXml(rule)).toBe(
      '<layer3FirewallRule managedBy="ops" disabled="true" precedence="default" id="1004"><sectionId>1007</sectionId><action>allow</action><logged>true</logged><notes>new</notes><source><address><containerId>ipset-3</containerId></address><exclude>false</exclude><address><ipAddress>10.9.9.0/24</ipAddress></address></source><appliedToList><appliedTo><value>dvportgroup-63</value></appliedTo></appliedToList></layer3FirewallRule>',
    );
  });

  it('keeps the current element when the JSON says the same, so interleaved children keep their order', () => {
    const current = readRules(config(rich))[0];
    const same = {
      address: [{ containerId: 'ipset-3' }, { ipAddress: '10.9.9.0/24' }],
      exclude: 'false',
    };
    const rule = ruleXml(
      draft({ id: '1004', source: { json: same, xml: jsonToElement('source', same) } }),
      current,
    );
    expect(childElements(rule, 'source')[0]).toBe(current?.source);
  });

  it('replaces a part the JSON changes, in place, and removes one set to null', () => {
    const current = readRules(config(rich))[0];
    const changed = { address: { containerId: 'ipset-9' } };
    const rule = ruleXml(
      draft({
        id: '1004',
        notes: null,
        source: { json: changed, xml: jsonToElement('source', changed) },
        destination: null,
      }),
      current,
    );
    expect(childElements(rule).map((c) => c.name)).toEqual([
      'sectionId',
      'action',
      'logged',
      'source',
      'appliedToList',
    ]);
    expect(buildXml(childElements(rule, 'source')[0] as XmlElement)).toBe(
      '<source><address><containerId>ipset-9</containerId></address></source>',
    );
  });

  it('inserts a part the rule lacked where the guide orders it', () => {
    const current = readRules(config(rich))[0];
    const destination = { address: { containerId: 'dvportgroup-63' } };
    const rule = ruleXml(
      draft({
        id: '1004',
        destination: { json: destination, xml: jsonToElement('destination', destination) },
      }),
      current,
    );
    expect(childElements(rule).map((c) => c.name)).toEqual([
      'sectionId',
      'action',
      'logged',
      'notes',
      'source',
      'destination',
      'appliedToList',
    ]);
  });

  it('drops the precedence attribute when the draft clears it', () => {
    const rule = ruleXml(draft({ precedence: null }));
    expect(rule.attributes).toEqual({ disabled: 'false' });
  });
});

describe('splicing rules into the document', () => {
  const current = config(rich);
  const added = ruleXml(draft({ notes: 'added' }));
  const added2 = ruleXml(draft({ layer: 'LAYER2', notes: 'added' }));

  it('inserts at a position among the rules of the layer, everything else untouched', () => {
    const document = insertRule(current.document, added, 1);
    expect(ids(document)).toEqual(['globalSettings', '1004', 'layer3FirewallRule', '1001', '1002']);
    expect(document.attributes).toEqual({ version: '5.5' });
    expect(configurationOf(document).attributes).toEqual({
      contextId: 'dvportgroup-63',
      owner: 'ops',
    });
    const before = childElements(configurationOf(current.document)).map((n) => outline(n));
    const after = childElements(configurationOf(document)).map((n) => outline(n));
    expect([after[0], after[1], after[3], after[4]]).toEqual(before);
    // written back as the manager sent them
    const written = buildXml(document);
    for (const untouched of ['globalSettings', 'id="1004"', 'id="1001"', 'id="1002"']) {
      const at = rich.indexOf(untouched);
      const element = rich.slice(rich.lastIndexOf('<', at), rich.indexOf('</', at));
      expect(written).toContain(element);
    }
  });

  it('appends after the last rule of the layer when there is no position', () => {
    expect(ids(insertRule(current.document, added, undefined))).toEqual([
      'globalSettings',
      '1004',
      '1001',
      'layer3FirewallRule',
      '1002',
    ]);
    expect(ids(insertRule(current.document, added2, undefined))).toEqual([
      'globalSettings',
      '1004',
      '1001',
      '1002',
      'layer2FirewallRule',
    ]);
  });

  it('puts a first layer-3 rule before the layer-2 rules', () => {
    const onlyLayer2 = removeRule(removeRule(current.document, '1004'), '1001');
    expect(ids(insertRule(onlyLayer2, added, 0))).toEqual([
      'globalSettings',
      'layer3FirewallRule',
      '1002',
    ]);
  });

  it('removes and replaces one rule by id', () => {
    expect(ids(removeRule(current.document, '1001'))).toEqual(['globalSettings', '1004', '1002']);
    expect(ids(removeRule(current.document, '999'))).toEqual(ids(current.document));
    const replaced = replaceRule(current.document, '1001', added);
    expect(childElements(configurationOf(replaced))[2]).toBe(added);
  });

  it('replaces the whole ruleset, layer 3 first, keeping what is not a rule', () => {
    const document = replaceAllRules(current.document, [added2, added]);
    expect(childElements(configurationOf(document)).map((n) => n.name)).toEqual([
      'globalSettings',
      'layer3FirewallRule',
      'layer2FirewallRule',
    ]);
  });
});
