import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack, type StackOptions } from '../helpers/stack.ts';
import { hasOpenssl, makeCertificates, type TestCertificates } from '../helpers/tls.ts';

let made: TestCertificates | undefined;

function certificates(): TestCertificates {
  if (made === undefined) throw new Error('no test certificates (openssl is missing)');
  return made;
}
const stacks: Stack[] = [];

beforeAll(() => {
  if (hasOpenssl()) made = makeCertificates();
});
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});
afterAll(() => {
  made?.remove();
});

async function stackWith(options: StackOptions): Promise<Stack> {
  const stack = await startStack(options);
  stacks.push(stack);
  return stack;
}

const served = () => ({ tls: { key: certificates().key, cert: certificates().cert } });
const httpsNsx = served;
const httpsVro = served;

describe.skipIf(!hasOpenssl())('TLS to the appliances', () => {
  it('talks to an HTTPS upstream whose certificate the CA of <X>_CA_FILE signed', async () => {
    const stack = await stackWith({ env: { NSX_CA_FILE: certificates().caFile }, nsx: httpsNsx() });
    expect(stack.config.nsx.url.protocol).toBe('https:');
    const answer = await stack.gql('{ ipSets { id } }');
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.['ipSets']).not.toHaveLength(0);
    expect(stack.nsx.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('refuses an upstream certificate no trusted CA signed: UPSTREAM_UNAVAILABLE, without the address', async () => {
    const stack = await stackWith({ nsx: httpsNsx() });
    const answer = await stack.gql('{ ipSets { id } }');
    expect(answer.data?.['ipSets']).toBeNull();
    const error = answer.errors?.[0];
    expect(error?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    expect(error?.message).toMatch(/certificate/i);
    const text = JSON.stringify(answer);
    expect(text).not.toContain(stack.nsx.url.host);
    expect(text).not.toContain('127.0.0.1');
    expect(stack.nsx.requests).toEqual([]);
  });

  it("trusts a CA for its own upstream only: NSX_CA_FILE does not vouch for vRO's certificate", async () => {
    const stack = await stackWith({
      env: { NSX_CA_FILE: certificates().caFile },
      nsx: httpsNsx(),
      vro: httpsVro(),
    });
    const answer = await stack.gql('{ ipSets { id } workflows(first: 1) { totalCount } }');
    expect(answer.data?.['ipSets']).not.toHaveLength(0);
    expect(answer.data?.['workflows']).toBeNull();
    expect(answer.errors?.map((e) => [e.path?.[0], e.extensions?.['code']])).toEqual([
      ['workflows', 'UPSTREAM_UNAVAILABLE'],
    ]);
    expect(stack.vro.requests).toEqual([]);
  });

  it('connects without checking the certificate when <X>_TLS_INSECURE=true', async () => {
    const stack = await stackWith({ env: { VRO_TLS_INSECURE: 'true' }, vro: httpsVro() });
    const answer = await stack.gql('{ workflows(first: 1) { totalCount } }');
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ workflows: { totalCount: 61 } });
    expect(stack.vro.requests).toHaveLength(1);
  });

  it('reports an upstream whose certificate is refused as down on /ready (still 200; 503 with ?upstreams=all)', async () => {
    const stack = await stackWith({ env: { READY_PROBE_INTERVAL_MS: '100' }, nsx: httpsNsx() });
    const ready = await stack.fetch('/ready');
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { upstreams: Record<string, { state: string }> };
    expect(body.upstreams['nsx']?.state).toBe('down');
    expect(body.upstreams['vro']?.state).toBe('up');
    expect((await stack.fetch('/ready?upstreams=all')).status).toBe(503);
  });
});
