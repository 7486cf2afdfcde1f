import { startBenchStack, type BenchStack, type SimulatorOptions } from '../bench-stack.ts';
import { fmt, type BenchContext } from '../bench-context.ts';
import { expectData, gql } from '../graphql-client.ts';
import { graphqlPost, runLoad } from '../load.ts';
import type { LoadResult } from '../load-spec.ts';
import { cpuSeconds, pin, sleep } from '../processes.ts';
import type { Check, Section } from '../report.ts';
import type { LoadReport } from '../../../simulators/knee.ts';

const latencyMs = 50;
const knee = 20;
const query = '{ workflows(first: 1) { nodes { id name } } }';
/** The gateway's limit before the adaptive one: a fixed cap of 32 calls per upstream. */
const formerDefault = { UPSTREAM_ADAPTIVE_CONCURRENCY: 'false', UPSTREAM_MAX_CONCURRENCY: '32' };
/** A fixed cap as high as the adaptive limit's ceiling: no protection. */
const fixedCeiling = { UPSTREAM_ADAPTIVE_CONCURRENCY: 'false' };

interface Row {
  gateway: string;
  connections: number;
  result: LoadResult;
  /** vRO's limit as /ready showed it every 250 ms of the measured run. */
  limit: { min: number; mean: number; max: number; last: number };
  appliance: LoadReport;
  simulatorCpuMs: number;
}

/** Flat 50 ms appliance: the adaptive limit must let 50 and 100 clients through. */
export async function flat50(ctx: BenchContext): Promise<Section> {
  const rows: Row[] = [];
  for (const [gateway, env] of [
    ['defaults (adaptive)', {}],
    [
      'UPSTREAM_ADAPTIVE_CONCURRENCY=false, UPSTREAM_MAX_CONCURRENCY=32 (the former default)',
      formerDefault,
    ],
  ] as const) {
    const connections = env === formerDefault ? [100] : [50, 100];
    rows.push(...(await measureStack(ctx, { latencyMs }, env, gateway, connections)));
  }
  const checks = rows
    .filter((r) => r.gateway.startsWith('defaults'))
    .map((r): Check => {
      const ideal = (r.connections * 1000) / latencyMs;
      return {
        what: `ops/s at ${r.connections} clients, flat ${latencyMs} ms appliance, default settings`,
        measured: `${fmt.rate(r.result.rate)} (${fmt.percent(r.result.rate / ideal)} of ${fmt.rate(ideal)}; limit ${r.limit.last})`,
        target: `≥ 90% of ${fmt.rate(ideal)}`,
        pass:
          r.result.rate >= 0.9 * ideal &&
          bad(r.result) === 0 &&
          (r.result.verified?.withErrors ?? 0) === 0,
      };
    });
  return {
    title: 'Adaptive concurrency: flat appliance',
    method: [
      `Every simulator answers after ${latencyMs} ms however many calls it has. \`${query}\` at 50 and 100 connections: one vRO call per operation, so the ideal is connections / ${latencyMs} ms. Every answer is checked (data and no error).`,
      'The gateway at its defaults: the adaptive limit starts at 32 and must find its way up. Then, for comparison, the former default (a fixed cap of 32 calls per upstream) at 100 connections.',
      rowsMethod(ctx),
    ],
    table: table(rows),
    checks,
  };
}

/** An appliance whose latency grows beyond 20 calls in flight: the limit must keep it near its knee. */
export async function kneeScenario(ctx: BenchContext): Promise<Section> {
  const runs = ctx.options.kneeRuns;
  const adaptive: Row[] = [];
  for (let run = 1; run <= runs; run++) {
    const gateway =
      runs === 1 ? 'defaults (adaptive)' : `defaults (adaptive), run ${run} of ${runs}`;
    adaptive.push(...(await measureStack(ctx, { latencyMs, knee }, {}, gateway, [100])));
  }
  const rows = [
    ...adaptive,
    ...(await measureStack(
      ctx,
      { latencyMs, knee },
      fixedCeiling,
      'UPSTREAM_ADAPTIVE_CONCURRENCY=false (a fixed cap of 256)',
      [100],
    )),
  ];
  const capacity = (knee * 1000) / latencyMs;
  const maxInFlight = knee * 1.5;
  const maxLatencyMs = latencyMs * 1.5;
  const minRate = 0.9 * capacity;
  /** A check that every run must pass, measured as each run's figure. */
  const everyRun = (
    what: string,
    figure: (r: Row) => string,
    target: string,
    pass: (r: Row) => boolean,
  ): Check => ({
    what: runs === 1 ? what : `${what}, in each of ${runs} runs`,
    measured: `${adaptive.map(figure).join('; ')}${runs === 1 ? '' : ` (${adaptive.filter(pass).length} of ${runs} pass)`}`,
    target,
    pass: adaptive.length === runs && adaptive.every(pass),
  });
  const checks: Check[] = [
    everyRun(
      `calls in flight at the appliance (knee ${knee}), p90 as each call arrived`,
      (r) => `${r.appliance.inFlightAtArrival.p90} (mean ${r.appliance.meanInFlight.toFixed(1)})`,
      `≤ ${maxInFlight}`,
      (r) => r.appliance.inFlightAtArrival.p90 <= maxInFlight,
    ),
    everyRun(
      'appliance latency p90',
      (r) => `${r.appliance.latencyMs.p90} ms`,
      `≤ ${maxLatencyMs} ms (1.5x its ${latencyMs} ms at rest)`,
      (r) => r.appliance.latencyMs.p90 <= maxLatencyMs,
    ),
    everyRun(
      'every operation answered with data, or shed with UPSTREAM_UNAVAILABLE, before its deadline',
      (r) =>
        `${r.result.responses} answered (${r.result.verified?.clean ?? 0} with data, ${shedSummary(r.result)} shed), ${r.result.errors} unanswered, slowest ${fmt.ms(r.result.latencyMs.max)} ms`,
      'all; UPSTREAM_UNAVAILABLE only; < 30,000 ms',
      (r) => onlyShed(r.result) && r.result.latencyMs.max < 30_000,
    ),
    everyRun(
      `ops/s against the knee's ${fmt.rate(capacity)}/s`,
      (r) => fmt.rate(r.result.rate),
      `≥ ${fmt.rate(minRate)} (90%)`,
      (r) => r.result.rate >= minRate,
    ),
  ];
  return {
    title: 'Adaptive concurrency: appliance with a knee',
    method: [
      `Every simulator answers after ${latencyMs} ms up to ${knee} calls in flight, and after ${latencyMs} ms × inFlight / ${knee} beyond (\`--latency-ms ${latencyMs} --knee ${knee}\`, counted as each call arrives): its throughput is ${fmt.rate(capacity)}/s however many calls it is sent, and every call beyond ${knee} only makes all of them slower. \`${query}\` at 100 connections; an answer is good with data, or with UPSTREAM_UNAVAILABLE errors only (the gateway shedding).`,
      `The gateway at its defaults, ${runs === 1 ? 'once' : `${runs} times, each with a fresh gateway and simulators (\`--knee-runs\`)`}: a target is met only when every run meets it.`,
      'The appliance figures come from the simulator process (`GET /load` on its control port): calls in flight as a time-weighted mean over the measured run and as each call arrived, and each call from arrival to the end of its answer.',
      'For comparison, the gateway with a fixed cap as high as the adaptive ceiling (256): what the appliance suffers without the adaptive limit.',
      rowsMethod(ctx),
    ],
    table: table(rows),
    checks,
  };
}

function rowsMethod(ctx: BenchContext): string {
  return [
    "Limit: vRO's `limit` on /ready, read every 250 ms of the measured run (min / mean / max, and at its end).",
    'CPU: user + system time over the measured run, of the gateway per operation, and of the load generator (autocannon) and of the simulators as a share of one core; at 100% a process is saturated and caps the row.',
    ctx.pinning
      ? 'The gateway is pinned to core 1; autocannon and the simulators share core 0.'
      : 'No pinning.',
    'The machine may be shared: read rows of one run against each other (see the load average at the top).',
  ].join(' ');
}

async function measureStack(
  ctx: BenchContext,
  simulators: SimulatorOptions,
  env: Record<string, string>,
  gateway: string,
  connectionsList: readonly number[],
): Promise<Row[]> {
  const stack = await startBenchStack({ simulators, env, nodeFlags: ctx.gatewayFlags });
  try {
    expectData(await gql(stack.gatewayOrigin, query), 'workflows(first: 1)');
    if (ctx.pinning) {
      pin(stack.gateway.pid, '1');
      pin(stack.simulators.pid, '0');
    }
    const rows: Row[] = [];
    for (const connections of connectionsList) {
      ctx.log(
        `${simulators.knee === undefined ? 'flat-50' : 'knee'}: ${gateway}, ${connections} connections`,
      );
      rows.push(await measure(ctx, stack, gateway, connections));
    }
    return rows;
  } finally {
    await stack.close();
  }
}

async function measure(
  ctx: BenchContext,
  stack: BenchStack,
  gateway: string,
  connections: number,
): Promise<Row> {
  const control = stack.upstreams.control;
  const limits: number[] = [];
  let sampling: Promise<void> | undefined;
  const run = { measuring: false };
  let simulatorCpu = 0;
  let appliance: LoadReport | undefined;
  const result = await runLoad(
    {
      ...graphqlPost(stack.gatewayOrigin, query, {
        connections,
        durationSeconds: ctx.options.rowSeconds,
        warmupSeconds: ctx.options.warmupSeconds,
      }),
      verify: 'graphql-contract',
    },
    {
      cores: ctx.pinning ? '0' : undefined,
      cpuOf: stack.gateway.pid,
      measuredRun: {
        before: async () => {
          await fetch(`${control}/load/reset`, { method: 'POST' }).then((r) => r.text());
          simulatorCpu = cpuSeconds(stack.simulators.pid);
          run.measuring = true;
          sampling = (async () => {
            while (run.measuring) {
              limits.push(await vroLimit(stack.gatewayOrigin));
              await sleep(250);
            }
          })();
        },
        after: async () => {
          run.measuring = false;
          simulatorCpu = cpuSeconds(stack.simulators.pid) - simulatorCpu;
          const reports = (await (await fetch(`${control}/load`)).json()) as Record<
            string,
            LoadReport
          >;
          appliance = reports['vro'];
          await sampling;
          limits.push(await vroLimit(stack.gatewayOrigin));
        },
      },
    },
  );
  if (appliance === undefined) throw new Error('the simulator reported no load for vRO');
  return {
    gateway,
    connections,
    result,
    limit: {
      min: Math.min(...limits),
      mean: limits.reduce((sum, n) => sum + n, 0) / limits.length,
      max: Math.max(...limits),
      last: limits.at(-1) ?? Number.NaN,
    },
    appliance,
    simulatorCpuMs: simulatorCpu * 1000,
  };
}

async function vroLimit(origin: string): Promise<number> {
  const body = (await (await fetch(`${origin}/ready`)).json()) as {
    upstreams: Record<string, { limit: number }>;
  };
  return body.upstreams['vro']?.limit ?? Number.NaN;
}

const bad = (r: LoadResult): number => r.errors + r.non2xx + r.mismatches + r.warmupMismatches;

/** Every answer has data or UPSTREAM_UNAVAILABLE errors only; nothing went unanswered. */
function onlyShed(r: LoadResult): boolean {
  const codes = Object.keys(r.verified?.codes ?? {});
  return bad(r) === 0 && r.timeouts === 0 && codes.every((code) => code === 'UPSTREAM_UNAVAILABLE');
}

function shedSummary(r: LoadResult): string {
  const codes = Object.entries(r.verified?.codes ?? {});
  if (codes.length === 0) return 'none';
  return codes.map(([code, n]) => `${n} ${code}`).join(', ');
}

function table(rows: readonly Row[]): Section['table'] {
  const share = (ms: number, r: Row): string => fmt.percent(ms / (r.result.seconds * 1000));
  return {
    head: [
      'gateway',
      'clients',
      'ops/s',
      'p50 ms',
      'p99 ms',
      'answers with errors',
      'limit min / mean / max (end)',
      'appliance: in flight mean / p90 / p99 / peak',
      'appliance latency p50 / p90 / p99 ms',
      'gateway CPU ms/op',
      'load generator CPU',
      'simulator CPU',
      'outside the contract or unanswered',
    ],
    rows: rows.map((r) => [
      r.gateway,
      String(r.connections),
      fmt.rate(r.result.rate),
      fmt.ms(r.result.latencyMs.p50),
      fmt.ms(r.result.latencyMs.p99),
      shedSummary(r.result),
      `${r.limit.min} / ${r.limit.mean.toFixed(0)} / ${r.limit.max} (${r.limit.last})`,
      `${r.appliance.meanInFlight.toFixed(1)} / ${r.appliance.inFlightAtArrival.p90} / ${r.appliance.inFlightAtArrival.p99} / ${r.appliance.peakInFlight}`,
      `${r.appliance.latencyMs.p50} / ${r.appliance.latencyMs.p90} / ${r.appliance.latencyMs.p99}`,
      fmt.ms(r.result.cpuMsPerOp ?? Number.NaN),
      r.result.generatorCpuMs === undefined ? 'n/a' : share(r.result.generatorCpuMs, r),
      share(r.simulatorCpuMs, r),
      String(bad(r.result)),
    ]),
  };
}
