import { metricTotals, startBenchStack, type BenchStack } from '../bench-stack.ts';
import { fmt, type BenchContext } from '../bench-context.ts';
import { expectData, gql } from '../graphql-client.ts';
import { graphqlPost, runLoad } from '../load.ts';
import type { LoadResult, LoadSpec } from '../load-spec.ts';
import { firstJsonLine, pin, spawnNode, type Spawned } from '../processes.ts';
import type { Section } from '../report.ts';

const latencyMs = 50;
const query = '{ workflows(first: 1) { nodes { id name } } }';
const restPath = '/workflows?maxResult=1&startIndex=0';

interface Row {
  path: 'gateway' | 'yoga' | 'proxy' | 'straight';
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
  const startFloor = async (label: string, args: readonly string[]): Promise<Floor> => {
    const spawned = spawnNode(label, args);
    started.push(spawned);
    return { process: spawned, origin: (await firstJsonLine<{ url: string }>(spawned)).url };
  };
  try {
    expectData(await gql(stack.gatewayOrigin, query), 'workflows(first: 1)');
    const { url, username, password } = stack.upstreams.vro;
    const floors: Floors = {
      proxy: await startFloor('bare proxy', ['test/bench/bare-proxy.ts', new URL(url).origin]),
      yoga: await startFloor('bare yoga', ['test/bench/bare-yoga.ts', url, username, password]),
    };
    expectData(await gql(floors.yoga.origin, query), 'workflows(first: 1), bare yoga');
    const rows: Row[] = [];
    for (const connections of [50, 100]) {
      for (const path of ['gateway', 'yoga', 'proxy', 'straight'] as const) {
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

/** A bench-only process under test beside the gateway, and where it listens. */
interface Floor {
  process: Spawned;
  origin: string;
}
interface Floors {
  proxy: Floor;
  yoga: Floor;
}

/**
 * The gateway row; the same operation through a bare graphql-yoga server (what
 * the framework allows); or the REST call the gateway makes, through the bare
 * proxy (what any extra hop allows) or straight to the simulator (what the rig
 * itself allows).
 */
async function measure(
  ctx: BenchContext,
  stack: BenchStack,
  floors: Floors,
  path: Row['path'],
  connections: number,
): Promise<Row> {
  const underTest = {
    gateway: stack.gateway,
    yoga: floors.yoga.process,
    proxy: floors.proxy.process,
    straight: stack.simulators,
  }[path];
  if (ctx.pinning) {
    for (const process of [
      stack.gateway,
      floors.yoga.process,
      floors.proxy.process,
      stack.simulators,
    ]) {
      pin(process.pid, process === underTest ? '1' : '0');
    }
  }
  const timing = {
    connections,
    durationSeconds: ctx.options.rowSeconds,
    warmupSeconds: ctx.options.warmupSeconds,
  };
  const { url, username, password } = stack.upstreams.vro;
  const rest = new URL(url + restPath);
  const origin = path === 'proxy' ? floors.proxy.origin : rest.origin;
  const spec: LoadSpec =
    path === 'gateway' || path === 'yoga'
      ? {
          ...graphqlPost(path === 'yoga' ? floors.yoga.origin : stack.gatewayOrigin, query, timing),
          verify: 'graphql-data',
        }
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

function report(ctx: BenchContext, rows: Row[]): Section {
  const bad = (r: LoadResult): number => r.errors + r.non2xx + r.mismatches + r.warmupMismatches;
  return {
    title: 'The upstream as the limit',
    method: [
      `Every simulator answers after ${latencyMs} ms (a delay fault on every request). \`${query}\` at 50 and 100 connections: one upstream call per operation, so the ideal is connections / ${latencyMs} ms. Every answer is checked (data and no error), so that fast error answers cannot pass for throughput.`,
      `Each gateway row is followed by three floors, each measured the same way: the same operation through a bare graphql-yoga server (\`test/bench/bare-yoga.ts\`: yoga's defaults and one resolver over an undici pool, none of the gateway's logs, metrics, limits, loaders or error mapping: what the chosen framework allows on this machine); the REST call the gateway makes (\`GET /vco/api${restPath}\`) through the bare pass-through proxy of the overhead section (what any extra hop between client and upstream allows); and the same call straight to the simulator (what the rig itself allows: simulator, load generator, loopback).`,
      "Where the time goes, in the gateway rows: the client's mean latency beside the gateway's own means over the same run (from its /metrics): the operation, from the request reaching yoga to its answer, and the upstream call within it, from handing the request to undici to the end of the answer's body. The straight row's mean is what the simulator itself takes (the 50 ms delay plus timer slack). The upstream call's excess over it is time the request and the answer spent between the two processes: in socket buffers and waiting for a busy event loop (undici also holds each request on a reused connection until the event loop's check phase, a safety check against stale connections). The client's excess over the operation is the same kind of wait on the way in and out.",
      "Host steal: the share of the machine's CPU time the hypervisor gave to other guests during the row (/proc/stat). While a virtual core is stolen, every process on it stops, whatever it was doing.",
      'A single gateway process runs JavaScript on one core: it cannot exceed 1000 / (its CPU ms per operation) operations per second, whatever the upstream latency; the CPU column (of the process under test) shows how close that is.',
      ctx.pinning
        ? 'The process under test (gateway, bare yoga, proxy, or simulator in the straight rows) is pinned to core 1; autocannon and the rest to core 0. With a hop in between, three processes share two cores: the simulator waits for core 0 behind autocannon, and every wake-up of a process on the other core costs a little; the proxy row shows what that alone takes.'
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
    checks: rows
      .filter((r) => r.path === 'gateway')
      .map((r) => {
        const share = (path: Row['path']): string => {
          const row = rows.find((s) => s.path === path && s.connections === r.connections);
          return row === undefined ? '?' : fmt.percent(row.result.rate / r.ideal);
        };
        return {
          what: `ops/s at ${r.connections} connections`,
          measured: `${fmt.rate(r.result.rate)} (${fmt.percent(r.result.rate / r.ideal)} of ${fmt.rate(r.ideal)}; bare yoga: ${share('yoga')}, bare proxy: ${share('proxy')}, straight to the simulator: ${share('straight')})`,
          target: `≥ 90% of ${fmt.rate(r.ideal)}`,
          pass: r.result.rate >= 0.9 * r.ideal && bad(r.result) === 0,
        };
      }),
  };
}

const pathLabels: Record<Row['path'], string> = {
  gateway: 'GraphQL, through the gateway',
  yoga: 'GraphQL, through a bare graphql-yoga server',
  proxy: 'REST, through the bare proxy',
  straight: 'REST, straight to the simulator',
};
