import { startNsxtSimulator, type NsxtSimulator } from '../../simulators/nsx/t/index.ts';
import { startStack, type Stack } from './stack.ts';

/** A gateway (the usual stack) whose NSX_URL is `sim`; `api` is NSX_API (undefined: found by asking). */
export function gatewayOnNsxt(sim: NsxtSimulator, api: 'v' | 't' | undefined): Promise<Stack> {
  return startStack({
    configure: (config) => ({
      ...config,
      nsx: { ...config.nsx, url: sim.url, username: sim.username, password: sim.password, api },
    }),
  });
}

/**
 * The NSX-T simulator and a gateway (the usual stack) whose NSX_URL is it,
 * with NSX_API=t: no generation probe. `close` stops both.
 */
export async function startNsxtStack(): Promise<{
  sim: NsxtSimulator;
  stack: Stack;
  close: () => Promise<void>;
}> {
  const sim = await startNsxtSimulator();
  const stack = await gatewayOnNsxt(sim, 't');
  return {
    sim,
    stack,
    close: async () => {
      await stack.close();
      await sim.close();
    },
  };
}
