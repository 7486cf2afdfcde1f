import {
  firstJsonLine,
  freePort,
  sleep,
  spawnNode,
  startFlags,
  type Spawned,
} from './processes.ts';

interface Upstream {
  url: string;
  username: string;
  password: string;
}

export interface SimulatorLine {
  vro: Upstream;
  vra: Upstream & { tenant: string };
  nsx: Upstream;
  control: string;
}

export type RouteCounts = Record<string, { total: number; byRoute: Record<string, number> }>;

export interface SimulatorOptions {
  latencyMs?: number;
  /** With latencyMs: the simulators' capacity in calls in flight (`--knee`). */
  knee?: number;
  faultProbability?: number;
  catalogItems?: number;
  /**
   * Serve the NSX simulator in a process of its own, with port group
   * dvportgroup-63's firewall seeded at about this many bytes (its parse of a
   * large POST then holds up only its own process).
   */
  nsxFirewallBytes?: number;
}

export interface BenchStackOptions {
  simulators?: SimulatorOptions;
  /** Gateway variables on top of the bench defaults. */
  env?: Record<string, string>;
  /** Extra node flags for the gateway (e.g. `--cpu-prof`), after those of `npm start`. */
  nodeFlags?: readonly string[];
  /** The gateway's entry (default `src/main.ts`): another checkout's, to compare. */
  entry?: string;
  /** Arguments after the entry (`--without request-log` for `test/bench/gateway-without.ts`). */
  entryArgs?: readonly string[];
}

export interface BenchStack {
  simulators: Spawned;
  /** The NSX simulator's own process, with `nsxFirewallBytes`. */
  nsxSimulator: Spawned | undefined;
  upstreams: SimulatorLine;
  gateway: Spawned;
  /** `http://127.0.0.1:<port>` */
  gatewayOrigin: string;
  counts(): Promise<RouteCounts>;
  resetCounts(): Promise<void>;
  close(): Promise<void>;
}

/** How long a simulator or the gateway may take to start (a loaded shared machine is slow to). */
const startupMs = 60_000;

/** What the bench sets for every gateway it starts (see BENCHMARKS.md, method). */
export const gatewayDefaults: Readonly<Record<string, string>> = {
  HOST: '127.0.0.1',
  READY_PROBE_INTERVAL_MS: '1000',
  SHUTDOWN_GRACE_MS: '2000',
};

/** The simulators (one process) and a gateway (another) pointed at them. */
export async function startBenchStack(options: BenchStackOptions = {}): Promise<BenchStack> {
  const sim = options.simulators ?? {};
  const simArgs = ['simulators/cli.ts', '--control-port', '0'];
  if (sim.latencyMs !== undefined) simArgs.push('--latency-ms', String(sim.latencyMs));
  if (sim.knee !== undefined) simArgs.push('--knee', String(sim.knee));
  if (sim.faultProbability !== undefined) {
    simArgs.push('--fault-probability', String(sim.faultProbability));
  }
  if (sim.catalogItems !== undefined) simArgs.push('--vra-catalog-items', String(sim.catalogItems));
  let nsxSimulator: Spawned | undefined;
  if (sim.nsxFirewallBytes !== undefined) {
    simArgs.push('--only', 'vro,vra');
    nsxSimulator = spawnNode('nsx simulator', [
      'simulators/cli.ts',
      '--only',
      'nsx',
      '--nsx-firewall-bytes',
      String(sim.nsxFirewallBytes),
    ]);
  }
  const simulators = spawnNode('simulators', simArgs);
  let gateway: Spawned | undefined;
  try {
    // both listened to at once: a line written before its listener is lost
    const [upstreams, own] = await Promise.all([
      firstJsonLine<SimulatorLine>(simulators, startupMs),
      nsxSimulator === undefined
        ? undefined
        : firstJsonLine<Pick<SimulatorLine, 'nsx'>>(nsxSimulator, startupMs),
    ]);
    if (own !== undefined) upstreams.nsx = own.nsx;
    const port = await freePort();
    gateway = spawnNode(
      'gateway',
      [
        ...startFlags(),
        ...(options.nodeFlags ?? []),
        options.entry ?? 'src/main.ts',
        ...(options.entryArgs ?? []),
      ],
      {
        ...gatewayDefaults,
        PORT: String(port),
        VRO_URL: upstreams.vro.url,
        VRO_USERNAME: upstreams.vro.username,
        VRO_PASSWORD: upstreams.vro.password,
        VRA_URL: upstreams.vra.url,
        VRA_USERNAME: upstreams.vra.username,
        VRA_PASSWORD: upstreams.vra.password,
        VRA_TENANT: upstreams.vra.tenant,
        NSX_URL: upstreams.nsx.url,
        NSX_USERNAME: upstreams.nsx.username,
        NSX_PASSWORD: upstreams.nsx.password,
        ...options.env,
      },
    );
    const gatewayOrigin = `http://127.0.0.1:${port}`;
    await waitReady(gatewayOrigin, gateway);
    const started = gateway;
    return {
      simulators,
      nsxSimulator,
      upstreams,
      gateway,
      gatewayOrigin,
      counts: async () =>
        (await (await fetch(`${upstreams.control}/counts`)).json()) as RouteCounts,
      resetCounts: async () => {
        await (await fetch(`${upstreams.control}/counts/reset`, { method: 'POST' })).text();
      },
      close: async () => {
        await started.stop();
        await simulators.stop();
        await nsxSimulator?.stop();
      },
    };
  } catch (error) {
    await gateway?.stop();
    await simulators.stop();
    await nsxSimulator?.stop();
    throw error;
  }
}

async function waitReady(origin: string, gateway: Spawned): Promise<void> {
  const until = Date.now() + startupMs;
  while (Date.now() < until) {
    if (gateway.child.exitCode !== null) {
      throw new Error(`the gateway exited: ${gateway.stderrTail()}`);
    }
    try {
      // Every appliance reachable too, not only the gateway serving.
      const response = await fetch(`${origin}/ready?upstreams=all`);
      await response.text();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(
    `the gateway was not ready within ${startupMs / 1000} s: ${gateway.stderrTail()}`,
  );
}

/** A vRA bearer token for the simulator's account, from its identity service (as the gateway gets one). */
export async function issueVraToken(upstreams: SimulatorLine): Promise<string> {
  const { url, username, password, tenant } = upstreams.vra;
  const response = await fetch(`${url}/identity/api/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ username, password, tenant }),
  });
  const body = (await response.json()) as { id?: string };
  if (response.status !== 200 || body.id === undefined) throw new Error('no vRA token');
  return body.id;
}

/** Sum of every simulator's count on routes matching `pattern` (`GET /catalog-service/api/providers`). */
export function countOf(counts: RouteCounts, pattern: RegExp): number {
  let total = 0;
  for (const service of Object.values(counts)) {
    for (const [route, n] of Object.entries(service.byRoute)) if (pattern.test(route)) total += n;
  }
  return total;
}

export function totalOf(counts: RouteCounts): number {
  return Object.values(counts).reduce((sum, service) => sum + service.total, 0);
}

/** Each named series of the gateway's /metrics, summed over its label sets (0 when absent). */
export async function metricTotals<Name extends string>(
  origin: string,
  names: readonly Name[],
): Promise<Record<Name, number>> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const totals = Object.fromEntries(names.map((name) => [name, 0])) as Record<Name, number>;
  const wanted = new Set<string>(names);
  for (const line of text.split('\n')) {
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
    if (name !== undefined && wanted.has(name)) {
      totals[name as Name] += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return totals;
}

/** Sum of `upstream_request_duration_seconds_count` over every label set, from /metrics. */
export async function upstreamCallsSeen(origin: string): Promise<number> {
  const name = 'upstream_request_duration_seconds_count';
  return (await metricTotals(origin, [name]))[name];
}
