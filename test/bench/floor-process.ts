import type { SimulatorLine } from './bench-stack.ts';
import { firstJsonLine, spawnNode, type Spawned } from './processes.ts';

/**
 * `bare-yoga.ts` (graphql-yoga's floor), `bare-envelop.ts` (yoga's operation
 * step under node:http, no server adapter) or `bare-lean.ts` (node:http and graphql-jit).
 */
export type FloorServer = 'yoga' | 'envelop' | 'lean';

/** What the floor answers and from which simulator. */
export type FloorUpstream =
  | { operation: 'workflows'; vro: SimulatorLine['vro'] }
  | { operation: 'providers'; vra: SimulatorLine['vra']; token: string };

export interface FloorProcess {
  process: Spawned;
  /** `http://127.0.0.1:<port>` */
  origin: string;
}

/** What a floor's line (no target) in a scenario's target table says it is. */
export const floorRoles = {
  yoga: 'bare graphql-yoga: what the chosen framework reaches here',
  lean: 'lean floor: what any GraphQL server in Node reaches here',
} as const satisfies Partial<Record<FloorServer, string>>;

const scripts: Record<FloorServer, { script: string; label: string }> = {
  yoga: { script: 'test/bench/bare-yoga.ts', label: 'bare yoga' },
  envelop: { script: 'test/bench/bare-envelop.ts', label: 'yoga under node:http' },
  lean: { script: 'test/bench/bare-lean.ts', label: 'lean floor' },
};

/** Starts a one-resolver floor server beside the gateway and waits until it listens. */
export async function startFloor(
  server: FloorServer,
  upstream: FloorUpstream,
  nodeFlags: readonly string[] = [],
): Promise<FloorProcess> {
  const { script, label } = scripts[server];
  const args =
    upstream.operation === 'workflows'
      ? ['workflows', upstream.vro.url, upstream.vro.username, upstream.vro.password]
      : ['providers', upstream.vra.url, upstream.token];
  const spawned = spawnNode(label, [...nodeFlags, script, ...args]);
  try {
    return { process: spawned, origin: (await firstJsonLine<{ url: string }>(spawned)).url };
  } catch (error) {
    await spawned.stop();
    throw error;
  }
}
