import { startBenchStack } from '../bench-stack.ts';
import { fmt, type BenchContext } from '../bench-context.ts';
import { expectData, gql } from '../graphql-client.ts';
import { floorRoles, startFloor, type FloorProcess } from '../floor-process.ts';
import { graphqlPost, runInterleaved, runLoad } from '../load.ts';
import type { LoadResult, LoadSpec } from '../load-spec.ts';
import { firstJsonLine, pin, spawnNode, type Spawned } from '../processes.ts';
import type { Check, Section } from '../report.ts';
import { coreCell, rigSaturated, saturated } from '../rig-saturation.ts';

const restPath = '/vco/api/workflows?maxResult=20&startIndex=0';
const query = '{ workflows(first: 20) { nodes { id name description version categoryName } } }';
/** Turns per path in the one-connection rows (each 1/rounds of a row's seconds). */
const rounds = 4;
/** The gateway's CPU per operation, at most this many times the bare proxy's (issue 17). */
const cpuRatioTarget = 1.5;
/**
 * Measured seconds of each 50-connection row: 3/4 of a row, which pays for
 * the bare-yoga row. A row's ops/s is a mean over its seconds: 6 s instead of
 * 8 widens its sampling error by √(8/6) = 15% (per-second ops/s scattered by
 * 15-25% on a busy machine: about ±7% instead of ±6%), less than rows of one
 * run drift apart on a shared host.
 */
const throughputSeconds = (rowSeconds: number): number =>
  Math.max(2, Math.round((rowSeconds * 3) / 4));
const gatewayRow = 'GraphQL, through the gateway';
const proxyRow = 'REST, through the bare proxy';
const leanRow = 'GraphQL, lean floor (node:http, graphql-jit, one resolver)';
const yogaRow = 'GraphQL, bare graphql-yoga (its defaults, one resolver)';
const straightRow = 'REST, straight to the simulator';

interface Target {
  name: string;
  spec: LoadSpec;
  /** The process whose cost the row measures (pinned to core 1 at 50 connections). */
  underTest: Spawned;
}

interface Row {
  target: string;
  connections: number;
  pinned: boolean;
  result: LoadResult;
}

/**
 * `workflows(first: 20)` through the gateway, against the same REST GET sent
 * straight to the vRO simulator and through a bare undici proxy.
 */
export async function overhead(ctx: BenchContext): Promise<Section> {
  const { options } = ctx;
  const stack = await startBenchStack({ nodeFlags: ctx.gatewayFlags });
  let proxy: Spawned | undefined;
  const floors: FloorProcess[] = [];
  try {
    const vro = new URL(stack.upstreams.vro.url);
    const { username, password } = stack.upstreams.vro;
    proxy = spawnNode('bare proxy', ['test/bench/bare-proxy.ts', vro.origin]);
    const proxyUrl = (await firstJsonLine<{ url: string }>(proxy)).url;
    const upstream = { operation: 'workflows', vro: stack.upstreams.vro } as const;
    const lean = await startFloor('lean', upstream);
    floors.push(lean);
    const yoga = await startFloor('yoga', upstream);
    floors.push(yoga);
    const rest = (origin: string): LoadSpec => ({
      url: origin + restPath,
      method: 'GET',
      headers: {
        authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
        accept: 'application/json',
      },
      connections: 1,
      durationSeconds: options.rowSeconds,
      warmupSeconds: options.warmupSeconds,
    });
    const graphql = (origin: string): LoadSpec => ({
      ...graphqlPost(origin, query, {
        connections: 1,
        durationSeconds: options.rowSeconds,
        warmupSeconds: options.warmupSeconds,
      }),
      verify: 'graphql-data',
      verifyWarmupOnly: true,
    });
    const data = expectData(await gql(stack.gatewayOrigin, query), 'workflows(first: 20)');
    const nodes = (data['workflows'] as { nodes: unknown[] }).nodes;
    if (nodes.length !== 20) throw new Error(`workflows(first: 20) answered ${nodes.length}`);
    expectData(await gql(lean.origin, query), 'workflows(first: 20), lean floor');
    expectData(await gql(yoga.origin, query), 'workflows(first: 20), bare yoga');
    await checkRest(rest(vro.origin));
    await checkRest(rest(proxyUrl));

    const targets: Target[] = [
      {
        name: straightRow,
        spec: rest(vro.origin),
        underTest: stack.simulators,
      },
      { name: proxyRow, spec: rest(proxyUrl), underTest: proxy },
      { name: leanRow, spec: graphql(lean.origin), underTest: lean.process },
      { name: yogaRow, spec: graphql(yoga.origin), underTest: yoga.process },
      { name: gatewayRow, spec: graphql(stack.gatewayOrigin), underTest: stack.gateway },
    ];
    const floorProcesses = new Set(floors.map((floor) => floor.process));
    const everyone = [stack.simulators, proxy, ...floorProcesses, stack.gateway];
    const rows: Row[] = [];
    // One connection: latency, compared in turns so that the machine's drift hits every row alike.
    if (ctx.pinning) for (const process of everyone) pin(process.pid, '0-1');
    // The floors are CPU floors: they are measured at 50 connections only (the default run's time).
    const latencyTargets = targets.filter((target) => !floorProcesses.has(target.underTest));
    ctx.log(`overhead: ${latencyTargets.length} paths in ${rounds} turns each, 1 connection`);
    const busyOf = (target: Target): Record<string, number> =>
      target.underTest === stack.simulators ? {} : { simulator: stack.simulators.pid };
    const single = await runInterleaved(
      latencyTargets.map((target) => ({
        spec: target.spec,
        cpuOf: target.underTest.pid,
        busyOf: busyOf(target),
      })),
      rounds,
    );
    for (const [i, target] of latencyTargets.entries()) {
      const result = single[i];
      if (result !== undefined)
        rows.push({ target: target.name, connections: 1, pinned: false, result });
    }
    // 50 connections: throughput, the process under test on a core of its own.
    for (const target of targets) {
      const pinned = ctx.pinning;
      if (ctx.pinning) {
        for (const process of everyone) pin(process.pid, process === target.underTest ? '1' : '0');
      }
      ctx.log(`overhead: ${target.name}, 50 connections`);
      const result = await runLoad(
        {
          ...target.spec,
          connections: 50,
          durationSeconds: throughputSeconds(options.rowSeconds),
        },
        { cores: pinned ? '0' : undefined, cpuOf: target.underTest.pid, busyOf: busyOf(target) },
      );
      rows.push({ target: target.name, connections: 50, pinned, result });
    }
    return report(rows, options.rowSeconds);
  } finally {
    for (const floor of floors) await floor.process.stop();
    await proxy?.stop();
    await stack.close();
  }
}

async function checkRest(spec: LoadSpec): Promise<void> {
  const response = await fetch(spec.url, { headers: spec.headers });
  const body = (await response.json()) as { link?: unknown[] };
  if (response.status !== 200 || body.link?.length !== 20) {
    throw new Error(`${spec.url}: ${response.status}, not 20 workflows`);
  }
}

function report(rows: Row[], rowSeconds: number): Section {
  const find = (target: string, connections: number): LoadResult | undefined =>
    rows.find((r) => r.target === target && r.connections === connections)?.result;
  const clean = (r: LoadResult | undefined): boolean =>
    r !== undefined && r.errors === 0 && r.non2xx === 0 && r.warmupMismatches === 0;
  const checks: Check[] = [];
  const gateway1 = find(gatewayRow, 1);
  const proxy1 = find(proxyRow, 1);
  if (gateway1 !== undefined && proxy1 !== undefined) {
    const added = gateway1.latencyMs.p50 - proxy1.latencyMs.p50;
    checks.push({
      what: 'median latency added over the bare proxy, 1 connection',
      measured: `${fmt.ms(added)} ms (${fmt.ms(gateway1.latencyMs.p50)} vs ${fmt.ms(proxy1.latencyMs.p50)})`,
      target: '≤ 0.50 ms',
      pass: clean(gateway1) && clean(proxy1) && added <= 0.5,
    });
  }
  const gateway50 = find(gatewayRow, 50);
  const proxy50 = find(proxyRow, 50);
  if (gateway50 !== undefined && proxy50 !== undefined) {
    const share = gateway50.rate / proxy50.rate;
    checks.push({
      what: "throughput kept of the bare proxy's, 50 connections",
      measured: `${fmt.percent(share)} (${fmt.rate(gateway50.rate)} vs ${fmt.rate(proxy50.rate)} /s)`,
      target: '≥ 70%',
      pass: clean(gateway50) && clean(proxy50) && share >= 0.7,
    });
  }
  const straight50 = find(straightRow, 50);
  if (gateway50 !== undefined && straight50 !== undefined) {
    const share = gateway50.rate / straight50.rate;
    const proxyShare =
      proxy50 === undefined ? '' : `; bare proxy: ${(proxy50.rate / straight50.rate).toFixed(2)}x`;
    checks.push({
      what: 'ops/s against the appliance answered directly, 50 connections (issue 36)',
      measured: `${share.toFixed(2)}x (${fmt.rate(gateway50.rate)} vs ${fmt.rate(straight50.rate)} /s${proxyShare})`,
      target: '≥ 0.5x',
      pass: clean(gateway50) && clean(straight50) && share >= 0.5,
    });
    for (const [name, what] of [
      [yogaRow, floorRoles.yoga],
      [leanRow, floorRoles.lean],
    ] as const) {
      const floor = find(name, 50);
      if (floor === undefined) continue;
      checks.push({
        what: `ops/s against the appliance answered directly, 50 connections, ${what}`,
        measured: `${(floor.rate / straight50.rate).toFixed(2)}x (${fmt.rate(floor.rate)} vs ${fmt.rate(straight50.rate)} /s; ${fmt.ms(floor.cpuMsPerOp ?? Number.NaN)} CPU ms/op, the gateway ${fmt.ms(gateway50.cpuMsPerOp ?? Number.NaN)})`,
        target: 'none: a floor',
        pass: null,
      });
    }
  }
  const gatewayCpu = gateway50?.cpuMsPerOp;
  const proxyCpu = proxy50?.cpuMsPerOp;
  if (gatewayCpu !== undefined && proxyCpu !== undefined) {
    const ratio = gatewayCpu / proxyCpu;
    const capped = rows.filter((r) => r.connections === 50 && rigSaturated(r.result));
    checks.push({
      what: "gateway's CPU per operation against the bare proxy's, 50 connections",
      measured: `${ratio.toFixed(2)}x (${fmt.ms(gatewayCpu)} vs ${fmt.ms(proxyCpu)} ms)${capped.length === 0 ? '' : `; load generator or simulator saturated in: ${capped.map((r) => r.target).join(', ')}`}`,
      target: `≤ ${cpuRatioTarget}x`,
      pass: ratio <= cpuRatioTarget,
    });
  }
  const leanCpu = find(leanRow, 50)?.cpuMsPerOp;
  if (leanCpu !== undefined && proxyCpu !== undefined) {
    checks.push({
      what: "lean floor's CPU per operation against the bare proxy's, 50 connections (what any GraphQL server in Node reaches here)",
      measured: `${(leanCpu / proxyCpu).toFixed(2)}x (${fmt.ms(leanCpu)} vs ${fmt.ms(proxyCpu)} ms)`,
      target: 'none: a floor',
      pass: null,
    });
  }
  return {
    title: 'Overhead',
    method: [
      '`workflows(first: 20) { nodes { id name description version categoryName } }` POSTed to the gateway, against the REST GET the gateway makes for it (`/vco/api/workflows?maxResult=20&startIndex=0`, Basic auth, `Accept: application/json`) sent straight to the vRO simulator and through a bare pass-through proxy (`test/bench/bare-proxy.ts`: node:http in, an undici pool out, nothing else).',
      "Two GraphQL floors answer the same query with the gateway's one resolver over an undici pool (the vRO answer JSON-parsed) and none of the gateway (no CORS, limits, logs, metrics, loaders or error mapping). The bare graphql-yoga floor (`test/bench/bare-yoga.ts`) runs it under yoga's defaults: what the framework the gateway is built on reaches on this machine, whatever the gateway does.",
      'The lean floor (`test/bench/bare-lean.ts`) answers the same query with no framework: node:http in, the body JSON-parsed, the document parsed, validated and compiled by graphql-jit once, one resolver over an undici pool (the vRO answer JSON-parsed), the result JSON-stringified and sent with `res.end`; none of the gateway (no CORS, limits, logs, metrics, loaders or error mapping). What any GraphQL server in Node can reach on this machine.',
      `Same tool (autocannon), same settings, in one run. With 1 connection the three paths other than the floors (bare yoga and the lean floor, CPU floors, measured at 50 connections only) are measured in turns: after each one's warm-up, ${rounds} rounds in which each path runs for 1/${rounds} of its time, one after the other, so that a drift of the machine's speed over the minutes (large on a shared virtual machine) falls on every path alike; each row pools its rounds, and nothing is pinned. With 50 connections the rows run one after the other, each for ${throughputSeconds(rowSeconds)} s (3/4 of a row) after its warm-up, the process under test (simulator, proxy, a floor or the gateway) pinned to core 1 and everything else (autocannon, the simulators when they are not under test) to core 0.`,
      "CPU ms/op: user + system CPU time of the process under test (/proc/<pid>/stat) over the measured run, per operation; unlike latency and throughput, it hardly depends on what else runs on the machine. Host steal: the share of the machine's CPU time the hypervisor gave to other guests during the row (/proc/stat).",
      'Because the simulator shares core 0 with autocannon in the proxy and gateway rows, a row can be capped by the simulator rather than by the process under test; the straight row shows what the simulator serves with a core of its own.',
      `Load gen and simulator: the CPU time of the load generator (autocannon's process, from its own process.cpuUsage) and of the simulators' process (when it is not the process under test) over the measured run, as a share of one core. Above ${fmt.percent(saturated)} a cell is marked "saturated": that process, not the one under test, may be what caps the row's ops/s. CPU ms/op is not affected by it.`,
    ],
    table: {
      head: [
        'path',
        'connections',
        'pinned',
        'ops/s',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'CPU ms/op',
        'load gen, core',
        'simulator, core',
        'host steal',
        'errors',
      ],
      rows: rows.map((r) => [
        r.target,
        String(r.connections),
        r.pinned ? 'yes' : 'no',
        fmt.rate(r.result.rate),
        fmt.ms(r.result.latencyMs.p50),
        fmt.ms(r.result.latencyMs.p90),
        fmt.ms(r.result.latencyMs.p99),
        fmt.ms(r.result.cpuMsPerOp ?? Number.NaN),
        coreCell(r.result.loadGenCoreShare),
        r.result.coreShares?.['simulator'] === undefined
          ? '(under test)'
          : coreCell(r.result.coreShares['simulator']),
        fmt.share(r.result.stealShare),
        String(r.result.errors + r.result.non2xx + r.result.warmupMismatches),
      ]),
    },
    checks,
  };
}
