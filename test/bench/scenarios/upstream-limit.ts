import { metricTotals, startBenchStack, type BenchStack } from '../bench-stack.ts';
import { fmt, type BenchContext } from '../bench-context.ts';
import { expectData, gql } from '../graphql-client.ts';
import { floorRoles, startFloor, type FloorProcess } from '../floor-process.ts';
import { graphqlPost, runLoad } from '../load.ts';
import type { LoadResult, LoadSpec } from '../load-spec.ts';
import { firstJsonLine, pin, spawnNode, type Spawned } from '../processes.ts';
import type { Check, Section } from '../report.ts';

const latencyMs = 50;
const query = '{ workflows(first: 1) { nodes { id name } } }';
const restPath = '/workflows?maxResult=1&startIndex=0';
/** The rows in the order they run at each connection count. */
const paths = ['gateway', 'yoga', 'lean', 'proxy', 'straight'] as const;
/**
 * Measured seconds of each row: 3/4 of a row, which pays for the lean floor's
 * two rows. A row's ops/s is a mean over its seconds: 6 s instead of 8 widens
 * its sampling error by √(8/6) = 15%, less than rows drift apart on a shared
 * host.
 */
const measuredSeconds = (rowSeconds: number): number =>
  Math.max(2, Math.round((rowSeconds * 3) / 4));

interface Row {
  path: (typeof paths)[number];
  connections: number;
  ideal: number;
  result: LoadResult;
  /** Gateway rows: its own mean timings over the measured run, from /metrics. */
  gatewayMs?: { operation: number; upstreamCall: number };
}

const timingSeries = [
  'graphql_operation_duration_seconds_sum',
  'graphql_operation_duration_seconds_count',
  'upstream_request_duration_seconds_sum',
  'upstream_request_duration_seconds_count',
] as const;
type Timings = Record<(typeof timingSeries)[number], number>;

/** Mean operation and upstream call times between two /metrics readings, ms. */
function meanTimings(before: Timings, after: Timings): NonNullable<Row['gatewayMs']> {
  const mean = (name: 'graphql_operation' | 'upstream_request'): number =>
    ((after[`${name}_duration_seconds_sum`] - before[`${name}_duration_seconds_sum`]) * 1000) /
    (after[`${name}_duration_seconds_count`] - before[`${name}_duration_seconds_count`]);
  return { operation: mean('graphql_operation'), upstreamCall: mean('upstream_request') };
}

/** Upstreams answering after 50 ms: the gateway should get close to connections / 50 ms. */
export async function upstreamLimit(ctx: BenchContext): Promise<Section> {
  const stack = await startBenchStack({
    simulators: { latencyMs },
    nodeFlags: ctx.gatewayFlags,
  });
  const started: Spawned[] = [];
  const keep = (floor: FloorProcess): FloorProcess => {
    started.push(floor.process);
    return floor;
  };
  try {
    expectData(await gql(stack.gatewayOrigin, query), 'workflows(first: 1)');
    const { vro } = stack.upstreams;
    const proxy = spawnNode('bare proxy', ['test/bench/bare-proxy.ts', new URL(vro.url).origin]);
    started.push(proxy);
    const floors: Floors = {
      proxy: { process: proxy, origin: (await firstJsonLine<{ url: string }>(proxy)).url },
      yoga: keep(await startFloor('yoga', { operation: 'workflows', vro })),
      lean: keep(await startFloor('lean', { operation: 'workflows', vro })),
    };
    expectData(await gql(floors.yoga.origin, query), 'workflows(first: 1), bare yoga');
    expectData(await gql(floors.lean.origin, query), 'workflows(first: 1), lean floor');
    const rows: Row[] = [];
    for (const connections of [50, 100]) {
      for (const path of paths) {
        ctx.log(`upstream limit: ${path}, ${connections} connections`);
        rows.push(await measure(ctx, stack, floors, path, connections));
      }
    }
    return report(ctx, rows);
  } finally {
    for (const spawned of started) await spawned.stop();
    await stack.close();
  }
}

/** The bench-only processes under test beside the gateway, and where they listen. */
interface Floors {
  proxy: FloorProcess;
  yoga: FloorProcess;
  lean: FloorProcess;
}

/**
 * The gateway row; the same operation through a bare graphql-yoga server (what
 * the framework allows) or the lean floor (what any GraphQL server in Node
 * allows); or the REST call the gateway makes, through the bare proxy (what
 * any extra hop allows) or straight to the simulator (what the rig itself
 * allows).
 */
async function measure(
  ctx: BenchContext,
  stack: BenchStack,
  floors: Floors,
  path: Row['path'],
  connections: number,
): Promise<Row> {
  const processes = {
    gateway: stack.gateway,
    yoga: floors.yoga.process,
    lean: floors.lean.process,
    proxy: floors.proxy.process,
    straight: stack.simulators,
  };
  const underTest = processes[path];
  if (ctx.pinning) {
    for (const process of Object.values(processes)) {
      pin(process.pid, process === underTest ? '1' : '0');
    }
  }
  const timing = {
    connections,
    durationSeconds: measuredSeconds(ctx.options.rowSeconds),
    // the simulator has served this very call for every row before the straight one
    warmupSeconds: path === 'straight' ? 0 : ctx.options.warmupSeconds,
  };
  const { url, username, password } = stack.upstreams.vro;
  const rest = new URL(url + restPath);
  const origin = path === 'proxy' ? floors.proxy.origin : rest.origin;
  const graphqlOrigin = {
    gateway: stack.gatewayOrigin,
    yoga: floors.yoga.origin,
    lean: floors.lean.origin,
  };
  const spec: LoadSpec =
    path === 'gateway' || path === 'yoga' || path === 'lean'
      ? { ...graphqlPost(graphqlOrigin[path], query, timing), verify: 'graphql-data' }
      : {
          ...timing,
          url: origin + rest.pathname + rest.search,
          method: 'GET',
          headers: {
            authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
            accept: 'application/json',
          },
        };
  let before: Timings | undefined;
  let gatewayMs: Row['gatewayMs'];
  const result = await runLoad(spec, {
    cores: ctx.pinning ? '0' : undefined,
    cpuOf: underTest.pid,
    ...(path === 'gateway'
      ? {
          measuredRun: {
            before: async () => {
              before = await metricTotals(stack.gatewayOrigin, timingSeries);
            },
            after: async () => {
              const after = await metricTotals(stack.gatewayOrigin, timingSeries);
              if (before !== undefined) gatewayMs = meanTimings(before, after);
            },
          },
        }
      : {}),
  });
  return {
    path,
    connections,
    ideal: (connections * 1000) / latencyMs,
    result,
    ...(gatewayMs === undefined ? {} : { gatewayMs }),
  };
}

const bad = (r: LoadResult): number => r.errors + r.non2xx + r.mismatches + r.warmupMismatches;

function report(ctx: BenchContext, rows: Row[]): Section {
  return {
    title: 'The upstream as the limit',
    method: [
      `Every simulator answers after ${latencyMs} ms (a delay fault on every request). \`${query}\` at 50 and 100 connections: one upstream call per operation, so the ideal is connections / ${latencyMs} ms. Every answer is checked (data and no error), so that fast error answers cannot pass for throughput. Each row runs ${measuredSeconds(ctx.options.rowSeconds)} s after its own warm-up of ${ctx.options.warmupSeconds} s, one row after the other; the straight rows have none, the simulator having served the same call for every row before them.`,
      `Each gateway row is followed by four floors, each measured the same way: the same operation through a bare graphql-yoga server (\`test/bench/bare-yoga.ts\`: yoga's defaults and one resolver over an undici pool, none of the gateway's logs, metrics, limits, loaders or error mapping: what the chosen framework allows on this machine) and through the lean floor of the overhead section (\`test/bench/bare-lean.ts\`: the same resolver under node:http and graphql-jit, no framework: what any GraphQL server in Node allows, the fastest alternative measured); the REST call the gateway makes (\`GET /vco/api${restPath}\`) through the bare pass-through proxy of the overhead section (what any extra hop between client and upstream allows); and the same call straight to the simulator (what the rig itself allows: simulator, load generator, loopback). The targets are judged on the gateway only; the two GraphQL floors' lines beside them (no target) give their share of the same ideal and their CPU per operation.`,
      "Where the time goes, in the gateway rows: the client's mean latency beside the gateway's own means over the same run (from its /metrics): the operation, from the request reaching yoga to its answer, and the upstream call within it, from handing the request to undici to the end of the answer's body. The straight row's mean is what the simulator itself takes (the 50 ms delay plus timer slack). The upstream call's excess over it is time the request and the answer spent between the two processes: in socket buffers and waiting for a busy event loop (undici also holds each request on a reused connection until the event loop's check phase, a safety check against stale connections). The client's excess over the operation is the same kind of wait on the way in and out.",
      "Host steal: the share of the machine's CPU time the hypervisor gave to other guests during the row (/proc/stat). While a virtual core is stolen, every process on it stops, whatever it was doing.",
      'A single gateway process runs JavaScript on one core: it cannot exceed 1000 / (its CPU ms per operation) operations per second, whatever the upstream latency; the CPU column (of the process under test) shows how close that is.',
      ctx.pinning
        ? 'The process under test (gateway, bare yoga, lean floor, proxy, or simulator in the straight rows) is pinned to core 1; autocannon and the rest to core 0. With a hop in between, three processes share two cores: the simulator waits for core 0 behind autocannon, and every wake-up of a process on the other core costs a little; the proxy row shows what that alone takes.'
        : 'No pinning.',
    ],
    table: {
      head: [
        'path',
        'connections',
        'ideal ops/s',
        'ops/s',
        'of ideal',
        'mean ms',
        'p50 ms',
        'p99 ms',
        'gateway: operation / upstream call, mean ms',
        'CPU ms/op',
        'host steal',
        'bad answers',
      ],
      rows: rows.map((r) => [
        pathLabels[r.path],
        String(r.connections),
        fmt.rate(r.ideal),
        fmt.rate(r.result.rate),
        fmt.percent(r.result.rate / r.ideal),
        fmt.ms(r.result.latencyMs.mean),
        fmt.ms(r.result.latencyMs.p50),
        fmt.ms(r.result.latencyMs.p99),
        r.gatewayMs === undefined
          ? '–'
          : `${fmt.ms(r.gatewayMs.operation)} / ${fmt.ms(r.gatewayMs.upstreamCall)}`,
        fmt.ms(r.result.cpuMsPerOp ?? Number.NaN),
        fmt.share(r.result.stealShare),
        String(bad(r.result)),
      ]),
    },
    checks: rows.filter((r) => r.path === 'gateway').flatMap((r) => checksAt(rows, r)),
  };
}

/** The gateway's check at its row's connections, then each GraphQL floor's share of the same ideal beside it. */
function checksAt(rows: readonly Row[], gateway: Row): Check[] {
  const at = (path: Row['path']): Row | undefined =>
    rows.find((s) => s.path === path && s.connections === gateway.connections);
  const share = (path: Row['path']): string => {
    const row = at(path);
    return row === undefined ? '?' : fmt.percent(row.result.rate / row.ideal);
  };
  const { ideal } = gateway;
  const checks: Check[] = [
    {
      what: `ops/s at ${gateway.connections} connections`,
      measured: `${fmt.rate(gateway.result.rate)} (${fmt.percent(gateway.result.rate / ideal)} of ${fmt.rate(ideal)}; bare proxy: ${share('proxy')}, straight to the simulator: ${share('straight')})`,
      target: `≥ 90% of ${fmt.rate(ideal)}`,
      pass: gateway.result.rate >= 0.9 * ideal && bad(gateway.result) === 0,
    },
  ];
  for (const path of ['yoga', 'lean'] as const) {
    const what = floorRoles[path];
    const floor = at(path);
    if (floor === undefined) continue;
    checks.push({
      what: `ops/s at ${gateway.connections} connections, ${what}`,
      measured: `${fmt.rate(floor.result.rate)} (${fmt.percent(floor.result.rate / ideal)} of ${fmt.rate(ideal)}; ${fmt.ms(floor.result.cpuMsPerOp ?? Number.NaN)} CPU ms/op, the gateway ${fmt.ms(gateway.result.cpuMsPerOp ?? Number.NaN)})${bad(floor.result) === 0 ? '' : '; bad answers'}`,
      target: 'none: a floor',
      pass: null,
    });
  }
  return checks;
}

const pathLabels: Record<Row['path'], string> = {
  gateway: 'GraphQL, through the gateway',
  yoga: 'GraphQL, through a bare graphql-yoga server',
  lean: 'GraphQL, through the lean floor (node:http, graphql-jit)',
  proxy: 'REST, through the bare proxy',
  straight: 'REST, straight to the simulator',
};
