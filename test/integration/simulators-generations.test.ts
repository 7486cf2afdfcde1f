import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startSimulators, type StartedSimulators } from '../../simulators/index.ts';

let started: StartedSimulators | undefined;
afterEach(async () => {
  await started?.close();
  started = undefined;
});

const basic = (username: string | undefined, password: string | undefined): string =>
  `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}`;

async function statusOf(url: URL, authorization?: string): Promise<number> {
  const response = await fetch(
    url,
    authorization === undefined ? {} : { headers: { authorization } },
  );
  await response.arrayBuffer();
  return response.status;
}

describe('the built-in simulators of each generation', () => {
  it('simulate vRA 7 and NSX-v unless a generation is asked for', async () => {
    started = await startSimulators(loadConfig({}));
    const { vra, nsx } = started.config;
    expect(started.summary.join('\n')).not.toMatch(/vRA 8|NSX-T/);
    expect(await statusOf(new URL('/iaas/api/about', vra.url))).toBe(404);
    expect(
      await statusOf(new URL('/api/v1/node/version', nsx.url), basic(nsx.username, nsx.password)),
    ).toBe(404);
  });

  it('simulate vRA 8 with VRA_API_GENERATION=8 and NSX-T with NSX_API=t', async () => {
    started = await startSimulators(loadConfig({ VRA_API_GENERATION: '8', NSX_API: 't' }));
    const { vra, nsx } = started.config;
    expect(started.summary).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^vra: built-in vRA 8 simulator at /),
        expect.stringMatching(/^nsx: built-in NSX-T simulator at /),
      ]),
    );
    expect(await statusOf(new URL('/iaas/api/about', vra.url))).toBe(200);
    expect(
      await statusOf(new URL('/api/v1/node/version', nsx.url), basic(nsx.username, nsx.password)),
    ).toBe(200);
    // the generation is that of the simulator: no need to ask it
    expect([started.config.vra.generation, started.config.nsx.api]).toEqual(['8', 't']);
  });
});
