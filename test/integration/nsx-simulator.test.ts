import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startNsxSimulator, type NsxSimulator } from '../../simulators/nsx/v/index.ts';
import { basic } from '../helpers/nsx.ts';

let sim: NsxSimulator;
beforeAll(async () => {
  sim = await startNsxSimulator();
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.reset();
});

async function send(
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string>; auth?: boolean } = {},
): Promise<{ status: number; headers: Headers; body: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== false) headers['authorization'] = basic(sim);
  const init: RequestInit = { method, headers };
  if (options.body !== undefined) init.body = options.body;
  const response = await fetch(new URL(path, sim.url), init);
  return { status: response.status, headers: response.headers, body: await response.text() };
}

const xml = { 'content-type': 'application/xml' };
const errorCode = (body: string) => /<errorCode>([^<]*)<\/errorCode>/.exec(body)?.[1];

describe('the NSX simulator', () => {
  it('wants Basic credentials on every call', async () => {
    const answer = await send('GET', '/api/2.0/services/ipset/scope/globalroot-0', { auth: false });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toContain('Basic');
    const wrong = await send('GET', '/api/2.0/services/ipset/scope/globalroot-0', {
      auth: false,
      headers: { authorization: `Basic ${Buffer.from('gateway:nope').toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
  });

  it('lists in <list> wrappers as application/xml', async () => {
    const answer = await send('GET', '/api/2.0/services/ipset/scope/globalroot-0');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/xml');
    expect(answer.body).toMatch(/^<\?xml[^>]*>\n<list>\n {2}<ipset>/);
  });

  it.each([
    ['GET', '/api/2.0/services/ipset/globalroot-0', 'the IP set list without the scope segment'],
    [
      'GET',
      '/api/2.0/services/applicationgroup/application-161',
      'applicationgroup for a service get',
    ],
    [
      'PUT',
      '/api/2.0/services/applicationgroup/application-161',
      'applicationgroup for a service put',
    ],
    [
      'DELETE',
      '/api/2.0/services/applicationgroup/application-161',
      'applicationgroup for a service delete',
    ],
    [
      'POST',
      '/api/3.0/edges/edge-1/loadbalancer/config/virtualserver',
      'the singular virtualserver',
    ],
  ])('answers 404 to %s %s (%s)', async (method, path) => {
    const body = method === 'GET' ? {} : { body: '<x/>', headers: xml };
    const answer = await send(method, path, body);
    expect(answer.status).toBe(404);
    expect(errorCode(answer.body)).toBe('202');
  });

  it('answers 404 to a service create with the documented-wrong scope segment', async () => {
    const answer = await send('POST', '/api/2.0/services/application/scope/globalroot-0', {
      body: '<application><name>x</name><element><applicationProtocol>TCP</applicationProtocol></element></application>',
      headers: xml,
    });
    expect(answer.status).toBe(404);
  });

  it('answers 405 to the documented GET force sync, 415 to a POST without Content-Type and 204 to the POST', async () => {
    expect((await send('GET', '/api/3.0/edges/edge-1?action=forcesync')).status).toBe(405);
    expect((await send('POST', '/api/4.0/edges/edge-1?action=forcesync')).status).toBe(415);
    const post = await send('POST', '/api/4.0/edges/edge-1?action=forcesync', { headers: xml });
    expect(post.status).toBe(204);
    expect(post.body).toBe('');
    expect(
      (await send('POST', '/api/4.0/edges/edge-9?action=forcesync', { headers: xml })).status,
    ).toBe(404);
  });

  it('creates with 201, the id as plain text and a Location ending in it', async () => {
    const answer = await send('POST', '/api/2.0/services/ipset/globalroot-0', {
      body: '<ipset><name>new</name><value>10.0.0.1</value></ipset>',
      headers: xml,
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toBe('ipset-8');
    expect(answer.headers.get('location')).toBe('/api/2.0/services/ipset/ipset-8');
  });

  it('creates a virtual server with 201 and a Location under the plural path', async () => {
    const answer = await send('POST', '/api/4.0/edges/edge-1/loadbalancer/config/virtualservers', {
      body: '<virtualServer><name>v</name><ipAddress>10.0.0.9</ipAddress><protocol>tcp</protocol><port>8443</port></virtualServer>',
      headers: xml,
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('location')).toBe(
      '/api/4.0/edges/edge-1/loadbalancer/config/virtualservers/virtualServer-2',
    );
  });

  it.each([
    ['no content type', {}],
    ['JSON', { 'content-type': 'application/json' }],
    ['text/xml', { 'content-type': 'text/xml' }],
  ])('refuses a body sent as %s with 415, as the manager documents', async (_what, headers) => {
    const answer = await send('POST', '/api/2.0/services/ipset/globalroot-0', {
      body: '<ipset><name>n</name></ipset>',
      headers,
    });
    expect(answer.status).toBe(415);
  });

  it.each([
    ['malformed XML', '<ipset><name>n</name>'],
    ['a DTD', '<!DOCTYPE ipset [<!ENTITY x "y">]><ipset><name>&x;</name></ipset>'],
    ['another root', '<application><name>n</name></application>'],
    ['a bad value', '<ipset><name>n</name><value>10.0.0.300</value></ipset>'],
    ['an empty name', '<ipset><name> </name></ipset>'],
  ])('refuses %s with 400 and error XML', async (_what, body) => {
    const answer = await send('POST', '/api/2.0/services/ipset/globalroot-0', {
      body,
      headers: xml,
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('<error>');
  });

  it('wants the current revision on PUT: 409 with errorCode 101 otherwise', async () => {
    const stale = await send('PUT', '/api/2.0/services/ipset/ipset-3', {
      body: '<ipset><objectId>ipset-3</objectId><revision>0</revision><name>x</name></ipset>',
      headers: xml,
    });
    expect(stale.status).toBe(409);
    expect(errorCode(stale.body)).toBe('101');
    const missing = await send('PUT', '/api/2.0/services/ipset/ipset-3', {
      body: '<ipset><name>x</name></ipset>',
      headers: xml,
    });
    expect(missing.status).toBe(400);
    const current = await send('PUT', '/api/2.0/services/ipset/ipset-3', {
      body: '<ipset><revision>1</revision><name>x</name></ipset>',
      headers: xml,
    });
    expect(current.status).toBe(200);
    expect(current.body).toContain('<revision>2</revision>');
  });

  it('refuses to delete an object in use without force, and a force that is not a boolean', async () => {
    expect((await send('DELETE', '/api/2.0/services/ipset/ipset-3')).status).toBe(400);
    expect((await send('DELETE', '/api/2.0/services/ipset/ipset-3?force=yes')).status).toBe(400);
    expect((await send('DELETE', '/api/2.0/services/ipset/ipset-3?force=true')).status).toBe(200);
    expect((await send('GET', '/api/2.0/services/ipset/ipset-3')).status).toBe(404);
  });

  describe('application firewall', () => {
    const path = '/api/2.0/app/firewall/dvportgroup-63/config';
    const body = `<VshieldAppConfiguration><firewallConfiguration contextId="dvportgroup-63">
      <layer3FirewallRule disabled="false" precedence="default" id="1001"><action>allow</action></layer3FirewallRule>
      <layer3FirewallRule disabled="false" precedence="default"><action>deny</action><notes>new</notes></layer3FirewallRule>
    </firewallConfiguration></VshieldAppConfiguration>`;

    it('answers the ruleset with a quoted ETag', async () => {
      const answer = await send('GET', path);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('etag')).toBe('"1312802020950"');
      expect(answer.body).toContain('<firewallConfiguration contextId="dvportgroup-63">');
    });

    it('wants text/xml (415), an If-Match (428) and the quoted current generation (412)', async () => {
      const asXml = await send('POST', path, {
        body,
        headers: { ...xml, 'if-match': '"1312802020950"' },
      });
      expect(asXml.status).toBe(415);
      const noMatch = await send('POST', path, { body, headers: { 'content-type': 'text/xml' } });
      expect(noMatch.status).toBe(428);
      const unquoted = await send('POST', path, {
        body,
        headers: { 'content-type': 'text/xml', 'if-match': '1312802020950' },
      });
      expect(unquoted.status).toBe(412);
      const stale = await send('POST', path, {
        body,
        headers: { 'content-type': 'text/xml', 'if-match': '"1312802020949"' },
      });
      expect(stale.status).toBe(412);
    });

    it('replaces the complete ruleset, gives new rules ids and moves the generation on', async () => {
      const answer = await send('POST', path, {
        body,
        headers: { 'content-type': 'text/xml; charset=utf-8', 'if-match': '"1312802020950"' },
      });
      expect(answer.status).toBe(204);
      const after = await send('GET', path);
      expect(after.headers.get('etag')).toBe('"1312802020951"');
      expect([...after.body.matchAll(/id="(\d+)"/g)].map((m) => m[1])).toEqual(['1001', '1005']);
    });

    it('refuses a rule id it does not hold, a wrong context and an unknown action', async () => {
      const headers = { 'content-type': 'text/xml', 'if-match': '"1312802020950"' };
      for (const wrong of [
        body.replace('id="1001"', 'id="7"'),
        body.replace('contextId="dvportgroup-63"', 'contextId="datacenter-2"'),
        body.replace('<action>deny</action>', '<action>maybe</action>'),
      ]) {
        expect((await send('POST', path, { body: wrong, headers })).status).toBe(400);
      }
    });

    it('answers 404 for an unknown context', async () => {
      expect((await send('GET', '/api/2.0/app/firewall/dvportgroup-1/config')).status).toBe(404);
    });
  });
});

describe('the NSX simulator as an NSX-v 6.x or vCNS 5.x manager', () => {
  it('refuses a port list or range for a port protocol other than TCP and UDP, as a manager does', async () => {
    const create = (protocol: string, value: string, sourcePort = '') =>
      send('POST', '/api/2.0/services/application/globalroot-0', {
        body: `<application><name>svc-${protocol}-${value}</name><element><applicationProtocol>${protocol}</applicationProtocol><value>${value}</value>${sourcePort === '' ? '' : `<sourcePort>${sourcePort}</sourcePort>`}</element></application>`,
        headers: xml,
      });
    expect((await create('FTP', '21,2121')).status).toBe(400);
    expect((await create('MS_RPC_TCP', '135-139')).status).toBe(400);
    expect((await create('ORACLE_TNS', '1521', '1000,1001')).status).toBe(400);
    expect((await create('TFTP', '69')).status).toBe(400);
    expect((await create('FTP', '21')).status).toBe(201);
    expect((await create('TCP', '80,443,8000-8080')).status).toBe(201);
  });

  it('serves edges under the versions its manager has, and the firewall it has', async () => {
    const nsxv = await startNsxSimulator({ manager: 'nsx-v' });
    const vcns = await startNsxSimulator({ manager: 'vcns' });
    const get = async (target: NsxSimulator, path: string) =>
      (await fetch(new URL(path, target.url), { headers: { authorization: basic(target) } }))
        .status;
    try {
      expect(await get(nsxv, '/api/4.0/edges')).toBe(200);
      expect(await get(nsxv, '/api/3.0/edges')).toBe(404);
      expect(await get(nsxv, '/api/2.0/app/firewall/dvportgroup-63/config')).toBe(404);
      expect(await get(nsxv, '/api/4.0/firewall/globalroot-0/config')).toBe(200);
      expect(await get(vcns, '/api/4.0/edges')).toBe(404);
      expect(await get(vcns, '/api/3.0/edges')).toBe(200);
      expect(await get(vcns, '/api/4.0/firewall/globalroot-0/config')).toBe(404);
      expect(await get(vcns, '/api/2.0/app/firewall/dvportgroup-63/config')).toBe(200);
    } finally {
      await Promise.all([nsxv.close(), vcns.close()]);
    }
  });

  it('pages the edge list and refuses a pageSize outside 1 to 1024', async () => {
    const page = await send('GET', '/api/4.0/edges?startIndex=1&pageSize=1');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<totalCount>3</totalCount>');
    expect([...page.body.matchAll(/<objectId>([^<]+)</g)].map((m) => m[1])).toEqual(['edge-3']);
    expect((await send('GET', '/api/4.0/edges?pageSize=1025')).status).toBe(400);
  });

  it('reads, replaces and deletes a virtual server, keeping its id', async () => {
    const path = '/api/4.0/edges/edge-1/loadbalancer/config/virtualservers/virtualServer-1';
    expect((await send('GET', path)).body).toContain('<vendorTemplateName>F5</vendorTemplateName>');
    const put = await send('PUT', path, {
      body: '<virtualServer><name>v2</name><ipAddress>10.0.0.9</ipAddress><protocol>tcp</protocol><port>8443</port></virtualServer>',
      headers: xml,
    });
    expect(put.status).toBe(204);
    expect((await send('GET', path)).body).toContain(
      '<virtualServerId>virtualServer-1</virtualServerId>',
    );
    expect(
      (
        await send('PUT', path, {
          body: '<virtualServer><name>v</name></virtualServer>',
          headers: xml,
        })
      ).status,
    ).toBe(400);
    expect((await send('DELETE', path)).status).toBe(204);
    expect((await send('GET', path)).status).toBe(404);
  });

  describe('distributed firewall sections', () => {
    const rules = '/api/4.0/firewall/globalroot-0/config/layer3sections/4/rules';
    const rule =
      '<rule disabled="false" logged="false"><name>r</name><action>allow</action></rule>';

    it('answers a section with its generation number as a quoted ETag', async () => {
      const answer = await send('GET', '/api/4.0/firewall/globalroot-0/config/layer3sections/4');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('etag')).toBe('"1510700045886"');
    });

    it('wants application/xml (415), an If-Match (428, invented) and the current generation (412), quoted or not', async () => {
      expect(
        (await send('POST', rules, { body: rule, headers: { 'if-match': '1510700045886' } }))
          .status,
      ).toBe(415);
      expect((await send('POST', rules, { body: rule, headers: xml })).status).toBe(428);
      expect(
        (
          await send('POST', rules, {
            body: rule,
            headers: { ...xml, 'if-match': '1510700045885' },
          })
        ).status,
      ).toBe(412);
      const created = await send('POST', rules, {
        body: rule,
        headers: { ...xml, 'if-match': '"1510700045886"' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toContain('id="17"');
      expect(created.headers.get('etag')).not.toBe('"1510700045886"');
      const section = await send('GET', '/api/4.0/firewall/globalroot-0/config/layer3sections/4');
      expect([...section.body.matchAll(/<rule id="(\d+)"/g)].map((m) => m[1])).toEqual([
        '17',
        '16',
        '12',
      ]);
    });

    it('inserts after an anchor and refuses a sectionId of another section', async () => {
      const headers = { ...xml, 'if-match': '1510700045886' };
      const after = await send('POST', `${rules}?operation=insert_after&anchorId=16`, {
        body: rule,
        headers,
      });
      expect(after.status).toBe(201);
      const etag = after.headers.get('etag') ?? '';
      const section = await send('GET', '/api/4.0/firewall/globalroot-0/config/layer3sections/4');
      expect([...section.body.matchAll(/<rule id="(\d+)"/g)].map((m) => m[1])).toEqual([
        '16',
        '17',
        '12',
      ]);
      const wrong = rule.replace('</rule>', '<sectionId>2</sectionId></rule>');
      expect(
        (await send('POST', rules, { body: wrong, headers: { ...xml, 'if-match': etag } })).status,
      ).toBe(400);
    });
  });
});
