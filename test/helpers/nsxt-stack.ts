import { startNsxtSimulator, type NsxtSimulator } from '../../src/simulators/nsxt/index.ts';
import { startStack, type Stack } from './stack.ts';

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
  const stack = await startStack({
    configure: (config) => ({
      ...config,
      nsx: {
        ...config.nsx,
        url: sim.url,
        username: sim.username,
        password: sim.password,
        api: 't',
      },
    }),
  });
  return {
    sim,
    stack,
    close: async () => {
      await stack.close();
      await sim.close();
    },
  };
}
