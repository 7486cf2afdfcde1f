/** The NSX-T client's virtual servers and error bodies, against a small loopback fake of the Policy API. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { GatewayConfig } from '../../src/gateway-config.ts';
import type { CallContext } from '../../src/http/upstream-http.ts';
import { createNsxManagers, type NsxManagers } from '../../src/upstreams/nsx/network-manager.ts';
import { readNsxAnyError } from '../../src/upstreams/nsx/t/error-json.ts';

interface Seen {
  method: string;
  url: string;
  body: string;
}

const lbServices = {
  results: [
    {
      id: 'web-lb',
      path: '/infra/lb-services/web-lb',
      connectivity_path: '/infra/tier-1s/t1-web',
      _revision: 0,
    },
    {
      id: 'other-lb',
      path: '/infra/lb-services/other-lb',
      connectivity_path: '/infra/tier-1s/t1-other',
      _revision: 0,
    },
  ],
  result_count: 2,
};
const virtualServers = [
  {
    id: 'web-vip',
    display_name: 'Web VIP',
    ip_address: '10.0.9.10',
    ports: ['443'],
    lb_service_path: '/infra/lb-services/web-lb',
    application_profile_path: '/infra/lb-app-profiles/default-tcp-lb-app-profile',
    pool_path: '/infra/lb-pools/web-pool',
    max_concurrent_connections: 100,
    _revision: 3,
  },
  {
    id: 'api-vip',
    display_name: 'API VIP',
    ip_address: '10.0.9.11',
    ports: ['80', '8080-8081'],
    lb_service_path: '/infra/lb-services/web-lb',
    application_profile_path: '/infra/lb-app-profiles/my-http',
    _revision: 0,
  },
  {
    id: 'elsewhere',
    display_name: 'Elsewhere',
    ip_address: '10.0.9.12',
    ports: ['53'],
    lb_service_path: '/infra/lb-services/other-lb',
    application_profile_path: '/infra/lb-app-profiles/default-udp-lb-app-profile',
    _revision: 0,
  },
];

function read(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

describe('NsxtClient against a loopback fake', () => {
  let server: Server;
  let managers: NsxManagers;
  const seen: Seen[] = [];
  const call: CallContext = { signal: new AbortController().signal, requestId: 'test' };

  beforeAll(async () => {
    server = createServer((request, response) => {
      void read(request).then((body) => {
        const url = request.url ?? '';
        seen.push({ method: request.method ?? '', url, body });
        const json = (status: number, value: unknown) => {
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(value));
        };
        if (url === '/policy/api/v1/infra/lb-services') return json(200, lbServices);
        if (url === '/policy/api/v1/infra/lb-virtual-servers') {
          // two pages, joined by the cursor
          return json(200, { results: virtualServers.slice(0, 2), cursor: '2' });
        }
        if (url === '/policy/api/v1/infra/lb-virtual-servers?cursor=2') {
          return json(200, { results: virtualServers.slice(2) });
        }
        if (url === '/policy/api/v1/infra/lb-app-profiles/my-http') {
          return json(200, { id: 'my-http', resource_type: 'LBHttpProfile', _revision: 0 });
        }
        if (
          request.method === 'PUT' &&
          url.startsWith('/policy/api/v1/infra/lb-virtual-servers/')
        ) {
          return json(200, {
            ...(JSON.parse(body) as object),
            id: url.split('/').at(-1),
            _revision: 0,
          });
        }
        json(404, {
          httpStatus: 'NOT_FOUND',
          error_code: 600,
          module_name: 'common-services',
          error_message: 'The path is invalid or the object does not exist.',
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const url = new URL(`http://127.0.0.1:${port}`);
    const base = loadConfig({ NSX_USERNAME: 'admin', NSX_PASSWORD: 'secret', NSX_API: 't' });
    const config: GatewayConfig = {
      ...base,
      vro: { ...base.vro, url },
      vra: { ...base.vra, url },
      nsx: { ...base.nsx, url },
    };
    managers = createNsxManagers(config);
  });
  afterAll(async () => {
    await managers.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it("lists a Tier-1 gateway's virtual servers through the load balancer services attached to it", async () => {
    seen.length = 0;
    const servers = await managers.listVirtualServers(call, 't1-web');
    expect(servers.map((s) => [s.virtualServerId, s.protocol, s.port, s.defaultPoolId])).toEqual([
      ['web-vip', 'tcp', '443', 'web-pool'],
      ['api-vip', 'http', '80,8080-8081', null],
    ]);
    expect(servers[0]?.connectionLimit).toBe(100);
    expect(seen.map((s) => `${s.method} ${s.url}`).sort()).toEqual([
      'GET /policy/api/v1/infra/lb-app-profiles/my-http',
      'GET /policy/api/v1/infra/lb-services',
      'GET /policy/api/v1/infra/lb-virtual-servers',
      'GET /policy/api/v1/infra/lb-virtual-servers?cursor=2',
    ]);
  });

  it("adds a virtual server to the Tier-1 gateway's load balancer service with the protocol's default profile", async () => {
    seen.length = 0;
    const added = await managers.addVirtualServer(call, 't1-web', {
      name: 'new',
      description: null,
      enabled: true,
      ipAddress: '10.0.9.20',
      protocol: 'udp',
      port: '53,5353',
      connectionLimit: null,
      connectionRateLimit: 10,
      applicationProfileId: null,
      defaultPoolId: 'dns-pool',
      accelerationEnabled: null,
    });
    expect(added).toMatchObject({
      name: 'new',
      protocol: 'udp',
      port: '53,5353',
      defaultPoolId: 'dns-pool',
    });
    const put = seen.find((s) => s.method === 'PUT');
    expect(JSON.parse(put?.body ?? '{}')).toEqual({
      resource_type: 'LBVirtualServer',
      lb_service_path: '/infra/lb-services/web-lb',
      display_name: 'new',
      enabled: true,
      ip_address: '10.0.9.20',
      ports: ['53', '5353'],
      application_profile_path: '/infra/lb-app-profiles/default-udp-lb-app-profile',
      pool_path: '/infra/lb-pools/dns-pool',
      max_new_connection_rate: 10,
    });
  });

  it('refuses HTTPS, which needs a certificate binding the input cannot carry, before any call', async () => {
    seen.length = 0;
    await expect(
      managers.addVirtualServer(call, 't1-web', {
        name: 'tls',
        description: null,
        enabled: null,
        ipAddress: '10.0.9.21',
        protocol: 'https',
        port: '443',
        connectionLimit: null,
        connectionRateLimit: null,
        applicationProfileId: null,
        defaultPoolId: null,
        accelerationEnabled: null,
      }),
    ).rejects.toMatchObject({ extensions: { code: 'NOT_SUPPORTED', generation: 'NSX-T' } });
    expect(seen).toEqual([]);
  });

  it('maps the ApiError body to the upstream code and message', async () => {
    await expect(managers.getEdge(call, 'missing')).rejects.toMatchObject({
      extensions: {
        code: 'NOT_FOUND',
        upstream: {
          service: 'nsx',
          status: 404,
          code: '600',
          message: 'The path is invalid or the object does not exist.',
        },
      },
    });
  });
});

describe('readNsxAnyError', () => {
  it("reads NSX-T's JSON ApiError and NSX-v's XML error on the one seam", () => {
    expect(
      readNsxAnyError(
        '{"httpStatus":"PRECONDITION_FAILED","error_code":602,"module_name":"common-services","error_message":"stale"}',
        'application/json',
      ),
    ).toEqual({ code: '602', message: 'stale' });
    expect(
      readNsxAnyError(
        '<error><details>no such set</details><errorCode>202</errorCode></error>',
        'application/xml',
      ),
    ).toEqual({ code: '202', message: 'no such set' });
    expect(readNsxAnyError('{"unrelated": true}', undefined)).toEqual({
      code: null,
      message: null,
    });
  });
});
