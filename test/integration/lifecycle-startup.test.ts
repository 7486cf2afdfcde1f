import { afterAll, describe, it, type ExpectStatic } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const started: SpawnedGateway[] = [];
afterAll(() => {
  for (const gateway of started.splice(0)) gateway.kill();
});

function start(env: Record<string, string>): SpawnedGateway {
  const gateway = spawnGateway({ LOG_LEVEL: 'info', ...env });
  started.push(gateway);
  return gateway;
}

async function stop(gateway: SpawnedGateway, expect: ExpectStatic): Promise<void> {
  gateway.child.kill('SIGTERM');
  expect(await gateway.exited).toBe(0);
}

describe('start-up', () => {
  it('refuses to listen on a non-loopback HOST with service credentials and no client authentication', async ({
    expect,
  }) => {
    const gateway = start({
      PORT: '0',
      HOST: '0.0.0.0',
      NSX_USERNAME: 'admin',
      NSX_PASSWORD: 'nsx-password-1',
    });
    expect(await gateway.exited).toBe(1);
    const said = gateway.stderr.join('\n');
    expect(said).toContain('HOST');
    expect(said).toContain('GATEWAY_TOKENS');
    expect(said).toContain('GATEWAY_ALLOW_UNAUTHENTICATED');
    expect(said).not.toContain('nsx-password-1');
    expect(gateway.logs().some((line) => line.msg.startsWith('GraphQL gateway ready'))).toBe(false);
  });

  it('serves on a non-loopback HOST when GATEWAY_ALLOW_UNAUTHENTICATED=true says so', async ({
    expect,
  }) => {
    const gateway = start({
      PORT: '0',
      HOST: '0.0.0.0',
      NSX_USERNAME: 'admin',
      NSX_PASSWORD: 'nsx-password-1',
      GATEWAY_ALLOW_UNAUTHENTICATED: 'true',
    });
    const port = await gateway.port();
    const answer = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ ipSets { id } }' }),
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { errors?: unknown }).errors).toBeUndefined();
    await stop(gateway, expect);
  });

  it('serves on a non-loopback HOST with GATEWAY_TOKENS, and asks every operation for one', async ({
    expect,
  }) => {
    const gateway = start({
      PORT: '0',
      HOST: '0.0.0.0',
      VRO_USERNAME: 'vcoadmin',
      VRO_PASSWORD: 'vcoadmin',
      GATEWAY_TOKENS: 'the-token',
    });
    const port = await gateway.port();
    const post = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: '{ workflows(first: 1) { totalCount } }' }),
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer the-token' })).status).toBe(200);
    await stop(gateway, expect);
  });

  it('says where each upstream is served from, one line each, with no warning and no password', async ({
    expect,
  }) => {
    const gateway = start({ PORT: '0', VRO_PASSWORD: 'vro-secret-9', VRO_USERNAME: 'ops' });
    await gateway.port();
    const lines = gateway.logs().map((line) => line.msg);
    for (const service of ['vro', 'vra', 'nsx']) {
      expect(
        lines.filter((msg) => msg.startsWith(`${service}: built-in simulator at `)),
      ).toHaveLength(1);
    }
    expect(gateway.stdout.join('\n')).not.toContain('vro-secret-9');
    expect(gateway.logs().filter((line) => line.level >= 40)).toEqual([]);
    await stop(gateway, expect);
  });

  it("names GraphiQL with the README's host name, localhost, when it listens on loopback", async ({
    expect,
  }) => {
    const gateway = start({ PORT: '0' });
    const port = await gateway.port();
    expect(gateway.logs().map((line) => line.msg)).toContain(
      `GraphQL gateway ready: GraphiQL at http://localhost:${port}/graphql`,
    );
    await stop(gateway, expect);
  });

  it("takes the simulators' knobs as settings: SIMULATOR_FAULT_PROBABILITY=1 with SIMULATOR_FAULT_KINDS=503 fails every appliance call", async ({
    expect,
  }) => {
    const gateway = start({
      PORT: '0',
      SIMULATOR_FAULT_PROBABILITY: '1',
      SIMULATOR_FAULT_KINDS: '503',
      UPSTREAM_RETRIES: '0',
    });
    const port = await gateway.port();
    const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ workflows(first: 1) { totalCount } ipSets { id } }' }),
    });
    const answer = (await response.json()) as { errors?: Array<{ extensions: { code: string } }> };
    expect(answer.errors?.map((error) => error.extensions.code)).toEqual([
      'UPSTREAM_UNAVAILABLE',
      'UPSTREAM_UNAVAILABLE',
    ]);
    await stop(gateway, expect);
  });

  it.for<[string, string]>([
    ['PORT', 'eighty'],
    ['VRO_URL', 'not a url'],
    ['SIMULATOR_FAULT_PROBABILITY', '2'],
    ['SIMULATOR_FAULT_KINDS', '503,teapot'],
    ['SIMULATOR_VRA_STEP_MS', '0'],
  ])(
    'stops with exit code 1 on a bad %s (%s), naming the variable',
    async ([variable, value], { expect }) => {
      const gateway = start({ [variable]: value });
      expect(await gateway.exited).toBe(1);
      expect(gateway.stderr.join('\n')).toMatch(new RegExp(`Configuration error: ${variable} `));
    },
  );

  it('never repeats a password given inside VRO_URL', async ({ expect }) => {
    const gateway = start({ VRO_URL: 'https://admin:hunter2-secret@vro.example/vco/api' });
    expect(await gateway.exited).toBe(1);
    const said = gateway.stderr.join('\n');
    expect(said).toContain('VRO_URL');
    expect(said).not.toContain('hunter2-secret');
  });

  it('warns at start, naming the variable, when an upstream skips certificate checks', async ({
    expect,
  }) => {
    const gateway = start({ PORT: '0', NSX_TLS_INSECURE: 'true' });
    await gateway.port();
    const warnings = gateway.logs().filter((line) => line.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toContain('NSX_TLS_INSECURE');
    expect(warnings[0]?.['service']).toBe('nsx');
    await stop(gateway, expect);
  });
});
