import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  countOf,
  issueVraToken,
  startBenchStack,
  type BenchStack,
  type SimulatorLine,
} from '../bench-stack.ts';
import { fmt, type BenchContext } from '../bench-context.ts';
import { floorRoles, startFloor, type FloorProcess } from '../floor-process.ts';
import { expectData, gql } from '../graphql-client.ts';
import { graphqlPost, runLoad } from '../load.ts';
import type { LoadResult, LoadSpec } from '../load-spec.ts';
import { collectStdout, freePort, pin, sleep, spawnNode, type Spawned } from '../processes.ts';
import type { Check, Section } from '../report.ts';
import { coreCell, rigSaturated, saturated } from '../rig-saturation.ts';
import { summarize } from '../stats.ts';

/** Hive Gateway and GraphQL Mesh, with a lock file of their own: only this scenario needs them. */
const hiveDir = 'test/bench/hive';
const pageSize = 50;
const connections = 50;
const ourQuery = `{ providers(first: ${pageSize}) { nodes { id name providerTypeId } totalCount } }`;
/** The field Mesh makes of `GET /catalog-service/api/providers` (test/bench/hive/). */
const hiveQuery = `{ providers(page: 1, limit: ${pageSize}) { content { id name providerTypeId } metadata { totalElements } } }`;
const providerList = /^GET \/catalog-service\/api\/providers$/;
/** Ours over Hive Gateway's, ops/s at 50 connections (issue 36). */
const target = 3;
/**
 * Turns in mirrored order (ABCDDCBA): every target's two turns are the same
 * distance from the middle, so that a steady drift of the machine's speed
 * falls on all four alike.
 */
const order = ['ours', 'yoga', 'lean', 'hive', 'hive', 'lean', 'yoga', 'ours'] as const;
type Who = (typeof order)[number];
/** The floors, each answering `ourQuery` with one resolver over the same simulator. */
type Floor = 'yoga' | 'lean';
const floorNames = ['yoga', 'lean'] as const satisfies readonly Floor[];
const names: Record<Who, string> = {
  ours: 'this gateway (defaults)',
  yoga: 'bare graphql-yoga (its defaults, one resolver)',
  lean: 'lean floor (node:http, graphql-jit, one resolver)',
  hive: 'Hive Gateway 2 (defaults, Mesh OpenAPI supergraph)',
};
const startupMs = 60_000;
/**
 * Hive Gateway answers a tenth as many operations as this gateway in the
 * bench's 2 s warm-up and its CPU per operation still falls after it: its
 * warm-up is at least this long (the others take the bench's).
 */
const hiveWarmupSeconds = 5;
/** A turn: a quarter of a row (2 s by default), so that eight turns cost about what four half rows did. */
const turnSeconds = (rowSeconds: number): number => Math.max(1, Math.round(rowSeconds / 4));

interface Turn {
  who: Who;
  result: LoadResult;
}

/**
 * `providers(first: 50)` through this gateway against the same page of vRA
 * 7's catalog providers through Hive Gateway, at 50 connections, over one vRA
 * simulator: one `GET /catalog-service/api/providers?page=1&limit=50` per
 * operation on both.
 */
export async function providers(ctx: BenchContext): Promise<Section> {
  installHive(ctx);
  const stack = await startBenchStack({ nodeFlags: ctx.gatewayFlags });
  const dir = mkdtempSync(join(tmpdir(), 'bench-hive-'));
  let hive: Spawned | undefined;
  const floors: Partial<Record<Floor, FloorProcess>> = {};
  try {
    const supergraph = join(dir, 'supergraph.graphql');
    await compose(stack.upstreams, supergraph);
    const port = await freePort();
    const token = await issueVraToken(stack.upstreams);
    hive = spawnNode(
      'hive gateway',
      [`${hiveDir}/node_modules/@graphql-hive/gateway/dist/bin.js`, 'supergraph', supergraph],
      { HOST: '127.0.0.1', PORT: String(port), VRA_TOKEN: token },
    );
    // the floors start while Hive Gateway does, with a bearer of the same identity service
    for (const floor of floorNames) {
      floors[floor] = await startFloor(floor, {
        operation: 'providers',
        vra: stack.upstreams.vra,
        token,
      });
    }
    const { yoga, lean } = floors;
    if (yoga === undefined || lean === undefined) throw new Error('a floor did not start');
    const hiveOrigin = `http://127.0.0.1:${port}`;
    await waitAnswering(hive, hiveOrigin);
    const origins: Record<Who, string> = {
      ours: stack.gatewayOrigin,
      yoga: yoga.origin,
      lean: lean.origin,
      hive: hiveOrigin,
    };
    await checkSameAnswer(stack, origins);

    const spec = (who: Who): LoadSpec => ({
      ...graphqlPost(origins[who], who === 'hive' ? hiveQuery : ourQuery, {
        connections,
        durationSeconds: turnSeconds(ctx.options.rowSeconds),
        warmupSeconds:
          who === 'hive'
            ? Math.max(hiveWarmupSeconds, ctx.options.warmupSeconds)
            : ctx.options.warmupSeconds,
      }),
      verify: 'graphql-data',
      rawLatencies: true,
    });
    const process: Record<Who, Spawned> = {
      ours: stack.gateway,
      yoga: yoga.process,
      lean: lean.process,
      hive,
    };
    const warmed = new Set<Who>();
    const turns: Turn[] = [];
    for (const who of order) {
      if (ctx.pinning) {
        for (const other of Object.values(process)) pin(other.pid, '0');
        pin(stack.simulators.pid, '0');
        pin(process[who].pid, '1');
      }
      ctx.log(`providers: ${names[who]}, ${connections} connections`);
      const result = await runLoad(
        warmed.has(who) ? { ...spec(who), warmupSeconds: 0 } : spec(who),
        {
          cores: ctx.pinning ? '0' : undefined,
          cpuOf: process[who].pid,
          busyOf: { simulator: stack.simulators.pid },
        },
      );
      warmed.add(who);
      turns.push({ who, result });
    }
    return report(ctx, turns);
  } finally {
    for (const floor of Object.values(floors)) await floor.process.stop();
    await hive?.stop();
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Installs the comparison's packages from their own lock file, once (`npm ci` in test/bench/hive). */
function installHive(ctx: BenchContext): void {
  if (existsSync(`${hiveDir}/node_modules/.package-lock.json`)) return;
  ctx.log(`providers: installing Hive Gateway into ${hiveDir}/node_modules (once)`);
  const run = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: hiveDir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (run.status !== 0) throw new Error(`npm ci in ${hiveDir} failed (${String(run.status)})`);
}

/** `mesh-compose` over test/bench/hive/mesh.config.mjs, the simulator's URL baked in. */
async function compose(upstreams: SimulatorLine, output: string): Promise<void> {
  const run = spawnNode(
    'mesh compose',
    [
      `${hiveDir}/node_modules/@graphql-mesh/compose-cli/esm/bin.js`,
      '--config-path',
      `${hiveDir}/mesh.config.mjs`,
      '--output',
      output,
    ],
    { VRA_URL: upstreams.vra.url },
  );
  const { code } = await collectStdout(run);
  if (code !== 0) throw new Error(`mesh-compose failed (${code}): ${run.stderrTail()}`);
}

async function waitAnswering(hive: Spawned, origin: string): Promise<void> {
  const until = Date.now() + startupMs;
  while (Date.now() < until) {
    if (hive.child.exitCode !== null) throw new Error(`Hive Gateway exited: ${hive.stderrTail()}`);
    try {
      const response = await fetch(`${origin}/healthcheck`);
      await response.text();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`Hive Gateway did not answer within ${startupMs / 1000} s: ${hive.stderrTail()}`);
}

/**
 * Every target answers the same providers, each with one call of the same
 * page to the simulator: Hive Gateway in its own shape, the floors in this
 * gateway's.
 */
async function checkSameAnswer(stack: BenchStack, origins: Record<Who, string>): Promise<void> {
  type Page = { ids: string; total: number };
  const pageOf = async (who: Who): Promise<Page> => {
    await stack.resetCounts();
    const data = expectData(
      await gql(origins[who], who === 'hive' ? hiveQuery : ourQuery),
      `providers, ${names[who]}`,
    );
    const calls = countOf(await stack.counts(), providerList);
    if (calls !== 1) {
      throw new Error(`${names[who]}: one provider call per operation expected, not ${calls}`);
    }
    const ids = (list: Array<{ id: string }>): string => list.map((p) => p.id).join(',');
    if (who === 'hive') {
      const page = data['providers'] as {
        content: Array<{ id: string }>;
        metadata: { totalElements: number };
      };
      return { ids: ids(page.content), total: page.metadata.totalElements };
    }
    const page = data['providers'] as { nodes: Array<{ id: string }>; totalCount: number };
    return { ids: ids(page.nodes), total: page.totalCount };
  };
  const mine = await pageOf('ours');
  if (mine.ids === '') throw new Error('this gateway answered no providers');
  for (const who of ['hive', ...floorNames] as const) {
    const theirs = await pageOf(who);
    if (theirs.ids !== mine.ids || theirs.total !== mine.total) {
      throw new Error(`this gateway and ${names[who]} did not answer the same providers`);
    }
  }
}

/** The turns of one gateway as one result: responses, seconds, CPU time and latencies summed. */
function pooled(turns: readonly Turn[], who: Who): LoadResult | undefined {
  const mine = turns.filter((t) => t.who === who).map((t) => t.result);
  const first = mine[0];
  if (first === undefined) return undefined;
  const sum = (of: (r: LoadResult) => number): number => mine.reduce((s, r) => s + of(r), 0);
  const responses = sum((r) => r.responses);
  const seconds = sum((r) => r.seconds);
  const latencies = mine.flatMap((r) => r.latencies ?? []);
  return {
    ...first,
    responses,
    seconds,
    rate: responses / seconds,
    latencyMs: summarize(latencies),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    non2xx: sum((r) => r.non2xx),
    mismatches: sum((r) => r.mismatches),
    warmupMismatches: sum((r) => r.warmupMismatches),
    cpuMsPerOp: sum((r) => (r.cpuMsPerOp ?? Number.NaN) * r.responses) / responses,
    loadGenCoreShare: sum((r) => (r.loadGenCoreShare ?? 0) * r.seconds) / seconds,
    coreShares: { simulator: sum((r) => (r.coreShares?.['simulator'] ?? 0) * r.seconds) / seconds },
    ...(mine.every((r) => r.stealShare !== undefined)
      ? { stealShare: sum((r) => (r.stealShare ?? 0) * r.seconds) / seconds }
      : {}),
    latencies: [],
  };
}

const bad = (r: LoadResult): number => r.errors + r.non2xx + r.mismatches + r.warmupMismatches;

function report(ctx: BenchContext, turns: readonly Turn[]): Section {
  const mine = pooled(turns, 'ours');
  const theirs = pooled(turns, 'hive');
  const checks: Check[] = [];
  if (mine !== undefined && theirs !== undefined) {
    const clean = bad(mine) === 0 && bad(theirs) === 0;
    const capped = [mine, theirs].some(rigSaturated);
    const ratio = mine.rate / theirs.rate;
    checks.push({
      what: `ops/s against Hive Gateway's, providers(first: ${pageSize}), ${connections} connections`,
      measured: `${ratio.toFixed(2)}x (${fmt.rate(mine.rate)} vs ${fmt.rate(theirs.rate)} /s)${clean ? '' : '; errors'}${capped ? '; load generator or simulator saturated' : ''}`,
      target: `≥ ${target}x`,
      pass: clean && ratio >= target,
    });
    const cpuRatio = (theirs.cpuMsPerOp ?? Number.NaN) / (mine.cpuMsPerOp ?? Number.NaN);
    checks.push({
      what: "Hive Gateway's CPU per operation against this gateway's",
      measured: `${cpuRatio.toFixed(2)}x (${fmt.ms(theirs.cpuMsPerOp ?? Number.NaN)} vs ${fmt.ms(mine.cpuMsPerOp ?? Number.NaN)} ms)`,
      target: `none: read with ops/s (≥ ${target}x there)`,
      pass: null,
    });
    for (const floor of floorNames) {
      const mirror = pooled(turns, floor);
      if (mirror === undefined) continue;
      checks.push({
        what: `ops/s against Hive Gateway's, ${floorRoles[floor]}`,
        measured: `${(mirror.rate / theirs.rate).toFixed(2)}x (${fmt.rate(mirror.rate)} vs ${fmt.rate(theirs.rate)} /s; ${fmt.ms(mirror.cpuMsPerOp ?? Number.NaN)} CPU ms/op, this gateway ${fmt.ms(mine.cpuMsPerOp ?? Number.NaN)})${bad(mirror) === 0 ? '' : '; errors'}${rigSaturated(mirror) ? '; load generator or simulator saturated' : ''}`,
        target: 'none: a floor',
        pass: null,
      });
    }
  }
  const row = (label: string, r: LoadResult): string[] => [
    label,
    fmt.rate(r.rate),
    fmt.ms(r.latencyMs.p50),
    fmt.ms(r.latencyMs.p99),
    fmt.ms(r.cpuMsPerOp ?? Number.NaN),
    coreCell(r.loadGenCoreShare),
    coreCell(r.coreShares?.['simulator']),
    fmt.share(r.stealShare),
    String(bad(r)),
  ];
  return {
    title: 'Providers against Hive Gateway',
    method: [
      `\`${ourQuery}\` POSTed to this gateway at its defaults, against \`${hiveQuery}\` POSTed to Hive Gateway 2 (\`@graphql-hive/gateway\`, \`hive-gateway supergraph\` at its defaults: one process, no fork). Both fronts the same vRA 7 simulator and make one \`GET /catalog-service/api/providers?page=1&limit=${pageSize}\` per operation with a bearer from the simulator's identity service (this gateway logs in with the service account itself; Hive Gateway is given a token issued by the simulator in \`VRA_TOKEN\`).`,
      "Hive Gateway's supergraph is composed at bench time by GraphQL Mesh (`@graphql-mesh/compose-cli` with `@omnigraph/openapi`) from `test/bench/hive/vra-providers.openapi.json`, an OpenAPI description of that one route, with `test/bench/hive/mesh.config.mjs`; these packages (about 500 MB) are installed on the scenario's first run into `test/bench/hive/node_modules` from their own lock file, not by the project's `npm ci`.",
      `Beside them, two floors answer this gateway's query over the same simulator, with the same call and a bearer issued the same way as Hive Gateway's, and one resolver mapping the page (\`content\` to \`nodes\`, \`metadata.totalElements\` to \`totalCount\`): bare graphql-yoga (\`test/bench/bare-yoga.ts\`, yoga's defaults: what the framework this gateway is built on reaches) and the lean floor (\`test/bench/bare-lean.ts\`, node:http and graphql-jit, no framework: the fastest alternative measured). None of a gateway's work (no logs, metrics, limits, scopes, caches or error mapping). Checked before the load, with the simulator's counts: each of the four makes one call per operation, and all answer the same providers. The target is judged on this gateway only; the floors' lines (no target) give their own ratio against Hive Gateway.`,
      `${connections} connections with autocannon, every answer checked (data, no error). The four take turns of ${turnSeconds(ctx.options.rowSeconds)} s in mirrored order (this gateway, bare yoga, lean floor, Hive, Hive, lean floor, bare yoga, this gateway), so that a steady drift of the machine's speed falls on all four alike (each one's two turns are as far from the middle); the first turn of each follows its warm-up (${ctx.options.warmupSeconds} s; Hive Gateway's ${Math.max(hiveWarmupSeconds, ctx.options.warmupSeconds)} s: its CPU per operation still fell after 2 s). Each row pools its two turns; the turn rows show the spread. On a loaded machine (load average well above 2) the ops/s ratio flatters this gateway: with core 1 shared with other work, Hive Gateway got a smaller share of it than this gateway did (about 20% against 50%), and its CPU per operation grew with the load more than this gateway's: both ratios are judged on a quiet machine only.`,
      ctx.pinning
        ? 'The server under test is pinned to core 1; autocannon, the simulators and the other servers (idle) to core 0.'
        : 'No pinning.',
      `CPU ms/op: user + system CPU time of the server under test over the measured run, per operation. Load gen and simulator: their CPU time as a share of one core; above ${fmt.percent(saturated)} a cell is marked "saturated": that process may be what caps the row's ops/s.`,
    ],
    table: {
      head: [
        'server',
        'ops/s',
        'p50 ms',
        'p99 ms',
        'CPU ms/op',
        'load gen, core',
        'simulator, core',
        'host steal',
        'errors',
      ],
      rows: [
        ...(['ours', ...floorNames, 'hive'] as const).flatMap((who) => {
          const result = pooled(turns, who);
          return result === undefined ? [] : [row(names[who], result)];
        }),
        ...turns.map((t, i) => row(`turn ${i + 1}: ${names[t.who]}`, t.result)),
      ],
    },
    checks,
  };
}
