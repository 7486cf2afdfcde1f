import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkDfwRuleInput } from '../../src/inputs/network.ts';
import {
  dfwRuleXml,
  readDistributedFirewall,
  readSection,
} from '../../src/upstreams/nsx/v/dfw-xml.ts';
import { readEdgePage } from '../../src/upstreams/nsx/v/edge-xml.ts';
import {
  readVirtualServer,
  virtualServerUpdateXml,
} from '../../src/upstreams/nsx/v/virtual-server-xml.ts';
import { elementToJson } from '../../src/upstreams/nsx/xml/xml-json.ts';
import { buildXml, childElements, parseXml } from '../../src/upstreams/nsx/xml/xml.ts';

const fixture = (name: string) =>
  parseXml(readFileSync(new URL(`../fixtures/nsx/${name}`, import.meta.url), 'utf8'));

describe('the distributed firewall off the wire', () => {
  it('reads the whole configuration: layer-3 sections, then layer-2, with their generation numbers', () => {
    const config = readDistributedFirewall(fixture('dfw-config-get.xml'), undefined);
    expect(config.generationNumber).toBe('1510700045886');
    expect(config.sections.map((s) => [s.id, s.name, s.layer, s.generationNumber])).toEqual([
      ['2', 'defaultSectionLayer3', 'LAYER3', '1510700045886'],
      ['1', 'defaultSectionLayer2', 'LAYER2', '1510700045886'],
    ]);
    expect(config.sections[0]?.rules[0]).toMatchObject({
      id: '2',
      name: 'Default Rule',
      action: 'DENY',
      disabled: false,
      logged: false,
    });
  });

  it('takes a section generation number from its ETag, quoted or not, over its attribute', () => {
    const node = fixture('dfw-layer3section-get.xml');
    expect(readSection(node, 'LAYER3', '"1510700099999"').generationNumber).toBe('1510700099999');
    expect(readSection(node, 'LAYER3', '1510700099999').generationNumber).toBe('1510700099999');
    expect(readSection(node, 'LAYER3').generationNumber).toBe('1510700045886');
  });

  it("keeps a rule's sources, services and appliedToList as JSON, @excluded included", () => {
    const section = readSection(fixture('dfw-layer3section-get.xml'), 'LAYER3');
    const rule = section.rules[0];
    expect(rule?.id).toBe('16');
    expect(rule?.sources === null ? null : elementToJson(rule!.sources)).toMatchObject({
      '@excluded': 'false',
      source: [
        { name: 'Site B Datacenter', value: 'datacenter-57', type: 'Datacenter' },
        { name: 'Compute Cluster 6', value: 'domain-c62' },
        { value: '10.112.1.1', type: 'Ipv4Address' },
      ],
    });
    expect(section.rules.map((r) => r.id)).toEqual(['16', '15', '14', '13', '12']);
  });

  it('reads a layer-2 section by its type attribute', () => {
    const sections = childElements(fixture('dfw-layer2sections-get-by-name.xml'), 'section');
    expect(readSection(sections[0]!, 'LAYER3').layer).toBe('LAYER2');
  });

  it('refuses a section without a generation number as a bad response', () => {
    expect(() => readSection(parseXml('<section id="9" name="x"/>'), 'LAYER3')).toThrow(
      /generation number/,
    );
  });
});

describe('a new distributed firewall rule onto the wire', () => {
  it("has the shape of the manager's rule-create example", () => {
    const draft = checkDfwRuleInput({
      name: 'AddRuleTest',
      action: 'ALLOW',
      disabled: false,
      logged: false,
      notes: '',
      appliedToList: { appliedTo: { value: 'datacenter-26', type: 'Datacenter' } },
      sources: { '@excluded': 'true', source: { value: 'datacenter-26', type: 'Datacenter' } },
      services: { service: { value: 'application-216' } },
    });
    const written = parseXml(buildXml(dfwRuleXml(draft, '2')));
    expect(written).toEqual(fixture('dfw-layer3section-rule-create-request.xml'));
  });
});

describe('edges and virtual servers off the wire', () => {
  it('reads a paged edge list with its total', () => {
    const page = readEdgePage(
      parseXml(
        `<pagedEdgeList><edgePage><pagingInfo><pageSize>1</pageSize><startIndex>0</startIndex><totalCount>3</totalCount></pagingInfo>
         <edgeSummary><objectId>edge-3</objectId><id>edge-3</id><name>Perimeter-Gateway-01</name><state>deployed</state><edgeType>gatewayServices</edgeType><datacenterName>Datacenter Site A</datacenterName><edgeStatus>GREEN</edgeStatus></edgeSummary>
         </edgePage></pagedEdgeList>`,
      ),
    );
    expect(page).toEqual({
      totalCount: 3,
      edges: [
        {
          id: 'edge-3',
          name: 'Perimeter-Gateway-01',
          edgeType: 'gatewayServices',
          status: 'GREEN',
          datacenterName: 'Datacenter Site A',
        },
      ],
    });
  });

  it('updates a virtual server in place, keeping its vendor profile and order', () => {
    const current = fixture('loadbalancer-virtualserver-get.xml');
    const updated = virtualServerUpdateXml(current, {
      name: 'renamed',
      description: null,
      enabled: false,
      ipAddress: '10.117.35.173',
      protocol: 'https',
      port: '443',
      connectionLimit: null,
      connectionRateLimit: null,
      applicationProfileId: null,
      defaultPoolId: null,
      accelerationEnabled: null,
    });
    expect(childElements(updated).map((c) => c.name)).toEqual(
      childElements(current).map((c) => c.name),
    );
    const read = readVirtualServer(updated);
    expect(read).toMatchObject({
      virtualServerId: 'virtualServer-1',
      name: 'renamed',
      description: 'http virtualServer',
      enabled: false,
      protocol: 'https',
      port: '443',
      connectionLimit: 123,
    });
    expect(buildXml(updated)).toContain('<vendorTemplateName>F5</vendorTemplateName>');
  });
});
