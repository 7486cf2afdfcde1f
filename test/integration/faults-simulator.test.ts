import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNsxSimulator, type NsxSimulator } from '../../simulators/nsx/v/index.ts';
import { readXml } from '../../simulators/nsx/v/sim-xml.ts';
import { startSimServer, type SimServer } from '../../simulators/sim-server.ts';
import { startVraSimulator, type VraSimulator } from '../../simulators/vra/v7/index.ts';
import { startVroSimulator, type VroSimulator } from '../../simulators/vro/index.ts';
import { rawRequest } from '../helpers/raw-http.ts';

/** A handler in the style Node allows besides writeHead: setHeader, statusCode, write, end. */
const answer = 'the whole answer, forty bytes long......';

let plain: SimServer;
let vro: VroSimulator;
let vra: VraSimulator;
let nsx: NsxSimulator;

beforeAll(async () => {
  plain = await startSimServer((_request, response) => {
    response.setHeader('content-type', 'text/plain');
    response.setHeader('x-simulator', 'plain');
    response.setHeader('content-length', answer.length);
    response.statusCode = 203;
    response.write(answer.slice(0, 10));
    response.end(answer.slice(10));
  });
  [vro, vra, nsx] = await Promise.all([
    startVroSimulator(),
    startVraSimulator(),
    startNsxSimulator(),
  ]);
});
afterAll(async () => {
  await Promise.all([plain.close(), vro.close(), vra.close(), nsx.close()]);
});
afterEach(() => {
  for (const sim of [plain, vro, vra, nsx]) sim.faults.clear();
});

const plainUrl = (): URL => new URL(`${plain.origin}/anything`);

describe('the fault switch', () => {
  it('answers normally without a fault, keeping headers set with setHeader', async () => {
    const exchange = await rawRequest(plainUrl(), 'GET');
    expect(exchange.status).toBe(203);
    expect(exchange.headers['x-simulator']).toBe('plain');
    expect(exchange.body.toString()).toBe(answer);
    expect(exchange.ended).toBe('closed');
  });

  it('truncated: promises the full Content-Length, sends half the body, then closes', async () => {
    plain.faults.inject({ fault: { kind: 'truncated' } });
    const exchange = await rawRequest(plainUrl(), 'GET');
    expect(exchange.status).toBe(203);
    expect(exchange.headers['x-simulator']).toBe('plain');
    expect(exchange.headers['content-length']).toBe(String(answer.length));
    expect(exchange.headers['transfer-encoding']).toBeUndefined();
    expect(exchange.body.toString()).toBe(answer.slice(0, answer.length / 2));
    expect(exchange.ended).toBe('closed');
  });

  it('reset-mid-body: sends the headers and half the body, then resets the connection', async () => {
    plain.faults.inject({ fault: { kind: 'reset-mid-body' } });
    const exchange = await rawRequest(plainUrl(), 'GET');
    expect(exchange.statusLine).toMatch(/^HTTP\/1\.1 203 /);
    expect(exchange.headers['content-length']).toBe(String(answer.length));
    expect(exchange.body.toString()).toBe(answer.slice(0, answer.length / 2));
    expect(exchange.ended).toBe('reset');
  });

  it('reset: resets the connection before anything is sent', async () => {
    plain.faults.inject({ fault: { kind: 'reset' } });
    const exchange = await rawRequest(plainUrl(), 'GET');
    expect(exchange.statusLine).toBeUndefined();
    expect(exchange.ended).toBe('reset');
  });

  it('drip: sends the whole answer with its Content-Length, a few bytes at a time', async () => {
    plain.faults.inject({ fault: { kind: 'drip', bytesPerTick: 4, tickMs: 2 } });
    const exchange = await rawRequest(plainUrl(), 'GET');
    expect(exchange.status).toBe(203);
    expect(exchange.headers['content-length']).toBe(String(answer.length));
    expect(exchange.body.toString()).toBe(answer);
    expect(exchange.bodyChunks).toBeGreaterThan(1);
  });

  it('status: answers that status and body instead', async () => {
    plain.faults.inject({
      fault: { kind: 'status', status: 503, body: 'down', contentType: 'text/html' },
    });
    const exchange = await rawRequest(plainUrl(), 'GET');
    expect(exchange.status).toBe(503);
    expect(exchange.headers['content-type']).toBe('text/html');
    expect(exchange.body.toString()).toBe('down');
  });

  it('delay: answers normally once the delay is over', async () => {
    plain.faults.inject({ fault: { kind: 'delay', ms: 20 } });
    const exchange = await rawRequest(plainUrl(), 'GET');
    expect(exchange.body.toString()).toBe(answer);
  });

  it('applies a rule `times` times, to its method and path only, then answers normally', async () => {
    plain.faults.inject({
      fault: { kind: 'reset' },
      method: 'GET',
      path: /^\/anything$/,
      times: 2,
    });
    expect((await rawRequest(new URL(`${plain.origin}/other`), 'GET')).status).toBe(203);
    expect((await rawRequest(plainUrl(), 'POST')).status).toBe(203);
    expect((await rawRequest(plainUrl(), 'GET')).ended).toBe('reset');
    expect((await rawRequest(plainUrl(), 'GET')).ended).toBe('reset');
    expect((await rawRequest(plainUrl(), 'GET')).status).toBe(203);
  });

  it('matches a string path exactly (decoded) and a method in any case', async () => {
    plain.faults.inject({ fault: { kind: 'reset' }, method: 'get', path: '/any thing' });
    expect((await rawRequest(new URL(`${plain.origin}/any%20thing/x`), 'GET')).status).toBe(203);
    expect((await rawRequest(new URL(`${plain.origin}/any%20thing`), 'GET')).ended).toBe('reset');
  });

  it('status: a body that is not a string goes as JSON', async () => {
    plain.faults.inject({ fault: { kind: 'status', status: 200, body: { content: [] } } });
    const exchange = await rawRequest(plainUrl(), 'GET');
    expect(exchange.headers['content-type']).toBe('application/json');
    expect(exchange.body.toString()).toBe('{"content":[]}');
  });

  it('tells a test when a request arrives and how its exchange ended', async () => {
    plain.faults.inject({ fault: { kind: 'delay', ms: 60_000 }, path: '/slow' });
    const slow = plain.nextRequest({ path: '/slow' });
    const fast = plain.nextRequest({ method: 'GET', path: /^\/anything$/ });
    await rawRequest(plainUrl(), 'GET');
    expect(await (await fast).ended).toBe('answered');
    const controller = new AbortController();
    const leaving = fetch(`${plain.origin}/slow`, { signal: controller.signal }).catch(
      () => 'left',
    );
    const arrived = await slow;
    expect(arrived.request.path).toBe('/slow');
    controller.abort();
    expect(await arrived.ended).toBe('gone');
    expect(await leaving).toBe('left');
  });

  it('records faulted requests like any other', async () => {
    const before = plain.requests.length;
    plain.faults.inject({ fault: { kind: 'reset' } });
    await rawRequest(plainUrl(), 'GET');
    expect(plain.requests.length).toBe(before + 1);
  });
});

describe("each simulator's own bodies", () => {
  it('vRO: 200 application/json that does not parse', async () => {
    vro.faults.inject({ fault: { kind: 'malformed' } });
    const exchange = await rawRequest(new URL(`${vro.url.href}/`), 'GET');
    expect(exchange.status).toBe(200);
    expect(exchange.headers['content-type']).toBe('application/json');
    expect(() => JSON.parse(exchange.body.toString()) as unknown).toThrow();
  });

  it('vRA: 200 application/json that does not parse', async () => {
    vra.faults.inject({ fault: { kind: 'malformed' } });
    const exchange = await rawRequest(new URL('/identity/api/tokens', vra.url), 'POST');
    expect(exchange.status).toBe(200);
    expect(exchange.headers['content-type']).toBe('application/json');
    expect(() => JSON.parse(exchange.body.toString()) as unknown).toThrow();
  });

  it('NSX: 200 application/xml that is not well-formed', async () => {
    nsx.faults.inject({ fault: { kind: 'malformed' } });
    const exchange = await rawRequest(new URL('/api/2.0/services/ipset/ipset-1', nsx.url), 'GET');
    expect(exchange.status).toBe(200);
    expect(exchange.headers['content-type']).toBe('application/xml');
    expect(() => readXml(exchange.body.toString())).toThrow();
  });

  it('each answers a status fault without a body with its own error document', async () => {
    for (const sim of [vro, vra, nsx])
      sim.faults.inject({ fault: { kind: 'status', status: 503 } });
    const vroError = await rawRequest(new URL(`${vro.url.href}/about`), 'GET');
    expect([vroError.status, vroError.headers['content-type']]).toEqual([503, 'application/json']);
    expect(JSON.parse(vroError.body.toString())).toEqual({
      status: '503',
      message: 'Service Unavailable',
    });
    const vraError = await rawRequest(new URL('/catalog-service/api/providers', vra.url), 'GET');
    expect([vraError.status, vraError.headers['content-type']]).toEqual([503, 'application/json']);
    expect(JSON.parse(vraError.body.toString())).toEqual({
      errors: [
        {
          code: 50505,
          source: null,
          message: 'System exception.',
          systemMessage: null,
          moreInfoUrl: null,
        },
      ],
    });
    const nsxError = await rawRequest(new URL('/api/2.0/services/ipset/ipset-1', nsx.url), 'GET');
    expect([nsxError.status, nsxError.headers['content-type']]).toEqual([503, 'application/xml']);
    expect(readXml(nsxError.body.toString())).toMatchObject({ tag: 'error' });
    expect(nsxError.body.toString()).toContain('<errorCode>503</errorCode>');
  });

  it('vRO: truncates its own JSON answer under the truncated fault', async () => {
    vro.faults.inject({ fault: { kind: 'truncated' } });
    const exchange = await rawRequest(new URL(`${vro.url.href}/`), 'GET');
    const promised = Number(exchange.headers['content-length']);
    expect(promised).toBeGreaterThan(10);
    expect(exchange.body.length).toBe(Math.floor(promised / 2));
  });
});
