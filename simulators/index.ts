import type { Config } from '../src/config.ts';
import type { GatewayConfig } from '../src/gateway-config.ts';
import type { FaultPlan } from './faults.ts';
import { faultOfKind, injectRandomFaults } from './random-faults.ts';
import { startNsxSimulator } from './nsx/v/index.ts';
import { startNsxtSimulator } from './nsx/t/index.ts';
import { startVraSimulator } from './vra/v7/index.ts';
import { startVra8Simulator } from './vra/v8/index.ts';
import { startVroSimulator } from './vro/index.ts';

export interface StartedSimulators {
  config: GatewayConfig;
  /** One line per upstream: where it is served from. */
  summary: string[];
  close(): Promise<void>;
}

/**
 * Starts the built-in simulator of every upstream whose URL is unset, on a
 * loopback port, and answers the configuration pointed at them. The
 * simulators take the configured credentials, or their own when none are set.
 * The first generation by default; VRA_API_GENERATION=8 simulates vRA 8 and
 * NSX_API=t the NSX-T Policy API.
 */
export async function startSimulators(config: Config): Promise<StartedSimulators> {
  const closers: Array<() => Promise<void>> = [];
  const summary: string[] = [];
  const { vroStepMs, vraStepMs, faultProbability, faultKinds } = config.simulators;
  const kinds = faultKinds.flatMap((kind) => faultOfKind(kind) ?? []);
  const slowed = (sim: { faults: FaultPlan }): void => {
    injectRandomFaults(sim.faults, faultProbability, kinds);
    if (config.simulatorLatencyMs > 0) {
      sim.faults.inject({ fault: { kind: 'delay', ms: config.simulatorLatencyMs } });
    }
  };
  const credentials = (c: { username: string | undefined; password: string | undefined }) => ({
    ...(c.username === undefined ? {} : { username: c.username }),
    ...(c.password === undefined ? {} : { password: c.password }),
  });

  let vro = { ...config.vro, url: config.vro.url ?? new URL('http://unset') };
  if (config.vro.url === undefined) {
    const sim = await startVroSimulator({ ...credentials(config.vro), stepMs: vroStepMs });
    slowed(sim);
    closers.push(() => sim.close());
    vro = { ...config.vro, url: sim.url, username: sim.username, password: sim.password };
    summary.push(`vro: built-in simulator at ${sim.url.href}`);
  } else summary.push(`vro: ${config.vro.url.origin}`);

  let vra = { ...config.vra, url: config.vra.url ?? new URL('http://unset') };
  if (config.vra.url === undefined && config.vra.generation === '8') {
    const sim = await startVra8Simulator({ ...credentials(config.vra), requestStepMs: vraStepMs });
    slowed(sim);
    closers.push(() => sim.close());
    vra = { ...config.vra, url: sim.url, username: sim.username, password: sim.password };
    summary.push(`vra: built-in vRA 8 simulator at ${sim.url.href}`);
  } else if (config.vra.url === undefined) {
    const sim = await startVraSimulator({
      ...credentials(config.vra),
      requestStepMs: vraStepMs,
      ...(config.vra.tenant === undefined ? {} : { tenant: config.vra.tenant }),
    });
    slowed(sim);
    closers.push(() => sim.close());
    vra = {
      ...config.vra,
      url: sim.url,
      username: sim.username,
      password: sim.password,
      tenant: sim.tenant,
    };
    summary.push(`vra: built-in simulator at ${sim.url.href}`);
  } else summary.push(`vra: ${config.vra.url.origin}`);

  let nsx = { ...config.nsx, url: config.nsx.url ?? new URL('http://unset') };
  if (config.nsx.url === undefined && config.nsx.api === 't') {
    const sim = await startNsxtSimulator(credentials(config.nsx));
    slowed(sim);
    closers.push(() => sim.close());
    nsx = { ...config.nsx, url: sim.url, username: sim.username, password: sim.password };
    summary.push(`nsx: built-in NSX-T simulator at ${sim.url.href}`);
  } else if (config.nsx.url === undefined) {
    const sim = await startNsxSimulator(credentials(config.nsx));
    slowed(sim);
    closers.push(() => sim.close());
    nsx = { ...config.nsx, url: sim.url, username: sim.username, password: sim.password };
    summary.push(`nsx: built-in simulator at ${sim.url.href}`);
  } else summary.push(`nsx: ${config.nsx.url.origin}`);

  return {
    config: { ...config, vro, vra, nsx },
    summary,
    close: async () => {
      await Promise.all(closers.map((close) => close()));
    },
  };
}
