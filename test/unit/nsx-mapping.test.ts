import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UpstreamBadResponseError } from '../../src/errors.ts';
import { readNsxError } from '../../src/upstreams/nsx/error-xml.ts';
import {
  ipSetCreateXml,
  ipSetUpdateXml,
  readIpSet,
  readIpSetList,
} from '../../src/upstreams/nsx/v/ip-set-xml.ts';
import {
  readService,
  readServiceList,
  serviceCreateXml,
  serviceUpdateXml,
} from '../../src/upstreams/nsx/v/service-xml.ts';
import { virtualServerXml } from '../../src/upstreams/nsx/v/virtual-server-xml.ts';
import { buildXml, childElements, parseXml } from '../../src/upstreams/nsx/xml/xml.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/nsx/${name}`, import.meta.url), 'utf8');

describe('IP sets', () => {
  it('reads a <list> of IP sets with their scope, revision and value', () => {
    const [first, second] = readIpSetList(parseXml(fixture('ipset-list.xml')));
    expect(first).toMatchObject({
      objectId: 'ipset-1',
      name: 'sys-gen-empty-ipset-edge-fw',
      description: null,
      value: '',
      revision: 2,
      scope: { id: 'globalroot-0', objectTypeName: 'GlobalRoot', name: 'Global' },
      inheritanceAllowed: true,
    });
    expect(second).toMatchObject({
      objectId: 'ipset-3',
      description: 'web tier addresses',
      value: '10.112.1.1,10.112.2.0/24,192.168.10.10-192.168.10.20',
      inheritanceAllowed: false,
    });
  });

  it('reads a single item as a one-item list and an empty list as none', () => {
    expect(readIpSetList(parseXml(`<list>${fixture('ipset-get.xml')}</list>`))).toHaveLength(1);
    expect(readIpSetList(parseXml('<list/>'))).toEqual([]);
  });

  it('reads the GET example, where description and value are empty', () => {
    expect(readIpSet(parseXml(fixture('ipset-get.xml')))).toMatchObject({
      objectId: 'ipset-3',
      name: 'IPSET-2',
      description: '',
      value: '',
      revision: 1,
      scope: null,
      inheritanceAllowed: null,
    });
  });

  it('refuses an IP set without objectId or name, and a revision that is not a number', () => {
    expect(() => readIpSet(parseXml('<ipset><name>x</name></ipset>'))).toThrow(
      UpstreamBadResponseError,
    );
    expect(() => readIpSet(parseXml('<ipset><objectId>ipset-1</objectId></ipset>'))).toThrow(
      /without <name>/,
    );
    expect(() =>
      readIpSet(
        parseXml('<ipset><objectId>i</objectId><name>x</name><revision>two</revision></ipset>'),
      ),
    ).toThrow(/whole number/);
    expect(() => readIpSetList(parseXml('<ipset/>'))).toThrow(/<list> expected/);
  });

  it('writes a create body with only what was given', () => {
    expect(
      buildXml(
        ipSetCreateXml({
          name: 'a<b',
          description: undefined,
          addresses: ['10.0.0.1', '10.1.0.0/16'],
          inheritanceAllowed: true,
        }),
      ),
    ).toBe(
      '<ipset><name>a&lt;b</name><value>10.0.0.1,10.1.0.0/16</value><inheritanceAllowed>true</inheritanceAllowed></ipset>',
    );
  });

  it('writes an update over the current object, keeping its revision and everything unmodelled', () => {
    const current = readIpSetList(parseXml(fixture('ipset-list.xml')))[0];
    if (current === undefined) throw new Error('fixture');
    const updated = ipSetUpdateXml(current, {
      name: 'renamed',
      description: 'now described',
      addresses: ['10.0.0.1'],
      inheritanceAllowed: undefined,
    });
    const names = childElements(updated).map((c) => c.name);
    expect(names).toEqual([
      ...childElements(current.xml).map((c) => c.name),
      'description',
      'value',
    ]);
    const reread = readIpSet(updated);
    expect(reread).toMatchObject({
      name: 'renamed',
      description: 'now described',
      value: '10.0.0.1',
      revision: 2,
      inheritanceAllowed: true,
    });
    expect(buildXml(updated)).toContain(
      '<extendedAttributes><extendedAttribute><name>isReadOnly</name>',
    );
  });

  it('clears the description when the draft says null', () => {
    const current = readIpSet(parseXml(fixture('ipset-get.xml')));
    const updated = ipSetUpdateXml(current, {
      name: 'x',
      description: null,
      addresses: [],
      inheritanceAllowed: false,
    });
    expect(readIpSet(updated)).toMatchObject({ description: '', inheritanceAllowed: false });
  });
});

describe('services', () => {
  it('reads a <list> of applications with protocol and ports', () => {
    const [first, second] = readServiceList(parseXml(fixture('application-list.xml')));
    expect(first).toMatchObject({
      objectId: 'application-161',
      name: 'VMware-VDM2.x-Ephemeral',
      protocol: 'TCP',
      ports: '1024-65535',
      sourcePorts: null,
      revision: 2,
    });
    expect(second).toMatchObject({
      objectId: 'application-371',
      protocol: 'MS_RPC_UDP',
      ports: '500',
    });
  });

  it('writes a create body in the documented shape', () => {
    expect(
      buildXml(
        serviceCreateXml({
          name: 'web',
          description: 'd',
          protocol: 'TCP',
          ports: '443,8000-8080',
          sourcePorts: null,
          inheritanceAllowed: undefined,
        }),
      ),
    ).toBe(
      '<application><name>web</name><description>d</description><element><applicationProtocol>TCP</applicationProtocol><value>443,8000-8080</value></element></application>',
    );
  });

  it('writes an update over the whole current object: objectId, revision and housekeeping kept', () => {
    const current = readService(parseXml(fixture('application-put-request.xml')));
    const updated = serviceUpdateXml(current, {
      name: 'renamed',
      description: undefined,
      protocol: 'UDP',
      ports: '53',
      sourcePorts: '1024-65535',
      inheritanceAllowed: false,
    });
    const xml = buildXml(updated);
    expect(xml).toContain('<objectId>application-371</objectId>');
    expect(xml).toContain('<revision>2</revision>');
    expect(xml).toContain('<vsmUuid>422A532F-41FA-4388-AC80-12F967B51339</vsmUuid>');
    expect(xml).toContain(
      '<element><applicationProtocol>UDP</applicationProtocol><value>53</value><sourcePort>1024-65535</sourcePort></element>',
    );
    expect(readService(updated)).toMatchObject({
      name: 'renamed',
      inheritanceAllowed: false,
      description: null,
    });
  });

  it('removes the ports when the draft says null', () => {
    const current = readService(parseXml(fixture('application-put-request.xml')));
    const updated = serviceUpdateXml(current, {
      name: 'n',
      description: undefined,
      protocol: 'IGMP',
      ports: null,
      sourcePorts: undefined,
      inheritanceAllowed: undefined,
    });
    expect(readService(updated)).toMatchObject({ protocol: 'IGMP', ports: null });
  });
});

describe('virtual servers', () => {
  it('writes the create body in the order of virtualServersCreate.xsd, leaving out what is unset', () => {
    expect(
      buildXml(
        virtualServerXml({
          name: 'vip',
          description: null,
          enabled: true,
          ipAddress: '10.117.35.172',
          protocol: 'https',
          port: '443,6000-7000',
          connectionLimit: 0,
          connectionRateLimit: null,
          applicationProfileId: 'applicationProfile-1',
          defaultPoolId: 'pool-1',
          accelerationEnabled: false,
        }),
      ),
    ).toBe(
      '<virtualServer><name>vip</name><enabled>true</enabled><ipAddress>10.117.35.172</ipAddress><protocol>https</protocol><port>443,6000-7000</port><connectionLimit>0</connectionLimit><applicationProfileId>applicationProfile-1</applicationProfileId><defaultPoolId>pool-1</defaultPoolId><accelerationEnabled>false</accelerationEnabled></virtualServer>',
    );
  });
});

describe('readNsxError', () => {
  it.each(['error-single.xml', 'error-multiple.xml'])(
    'takes errorCode and details from %s',
    (name) => {
      expect(readNsxError(fixture(name), 'application/xml')).toEqual({
        code: '13100',
        message:
          '[Routing] Default Originate cannot be enabled on BGP from edge version 6.3.0 onwards.',
      });
    },
  );

  it('reads an error with errorData, never copying the data', () => {
    expect(readNsxError(fixture('error-with-data.xml'), 'application/xml')).toEqual({
      code: '15012',
      message: 'Invalid IP Address input 44.4-44.5 for field ipPools.ipPools[0].ipRange.',
    });
  });

  it.each([
    ['an HTML page', '<html><body>Bad gateway</body></html>'],
    ['plain text', 'Service Unavailable'],
    ['an empty body', ''],
    ['a DOCTYPE', '<!DOCTYPE x><error><errorCode>1</errorCode></error>'],
  ])('answers nulls for %s', (_what, body) => {
    expect(readNsxError(body, 'text/html')).toEqual({ code: null, message: null });
  });

  it('cuts a very long message', () => {
    const body = `<error><details>${'x'.repeat(5000)}</details><errorCode>1</errorCode></error>`;
    expect(readNsxError(body, 'application/xml').message).toHaveLength(500);
  });
});
