/**
 * A/B of the gateway's CPU time per operation: one gateway (with simulators
 * of its own) per variant, all started at once, then rounds in which each
 * variant takes the same load in turn (the order alternates), so that the
 * drift of a shared machine falls on every variant alike.
 *
 *   node test/bench/cpu-ab.ts '{"base":{},"no cache":{"WORKFLOW_DETAIL_CACHE_TTL_MS":"0"}}' \
 *     [--rounds 6] [--seconds 6] [--connections 50] [--rate <ops/s>] [--query '{ ... }'] [--cpu-prof <dir>]
 *
 * Each variant is a set of gateway variables; `"entry": "<path>"` in it runs
 * another checkout's `src/main.ts`, `"without": "request-log,metrics"` this
 * checkout's gateway composed without those features
 * (`test/bench/gateway-without.ts`), and `"nodeFlags": "--max-semi-space-size=16"`
 * gives node flags after those of `npm start` (a later V8 flag wins). Prints
 * each round, the median per variant, and each gateway's resident memory
 * idle (before any load) and at its peak (VmHWM) over all rounds.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startBenchStack, type BenchStack } from './bench-stack.ts';
import { expectData, gql } from './graphql-client.ts';
import { graphqlPost } from './load.ts';
import { describeRun, pairedRounds, spreadOf } from './paired-rounds.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '6' },
    connections: { type: 'string', default: '50' },
    /** A fixed rate (operations/s over all connections): every variant batches alike. */
    rate: { type: 'string' },
    query: {
      type: 'string',
      default: '{ workflows(first: 20) { nodes { id name description version categoryName } } }',
    },
    'cpu-prof': { type: 'string' },
  },
});
const variants = JSON.parse(positionals[0] ?? '{"base":{}}') as Record<
  string,
  Record<string, string>
>;
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rate = values.rate === undefined ? undefined : Number(values.rate);
const query = values.query;
const profileDir = values['cpu-prof'];

const stacks: Array<[string, BenchStack]> = [];
try {
  for (const [name, { entry, without, nodeFlags, ...env }] of Object.entries(variants)) {
    const stack = await startBenchStack({
      env,
      ...(without === undefined
        ? entry === undefined
          ? {}
          : { entry }
        : { entry: 'test/bench/gateway-without.ts', entryArgs: ['--without', without] }),
      nodeFlags: [
        ...(nodeFlags?.split(/\s+/).filter((flag) => flag !== '') ?? []),
        ...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]),
      ],
    });
    stacks.push([name, stack]);
  }
  // idle: started, before any operation
  const idleRss = new Map(
    stacks.map(([name, stack]) => [name, statusMiB(stack.gateway.pid, 'VmRSS')]),
  );
  for (const [name, stack] of stacks) expectData(await gql(stack.gatewayOrigin, query), name);
  const runs = await pairedRounds(
    stacks.map(([name, stack]) => ({
      name,
      pid: stack.gateway.pid,
      spec: (durationSeconds: number) =>
        graphqlPost(stack.gatewayOrigin, query, {
          connections,
          durationSeconds,
          warmupSeconds: 0,
          ...(rate === undefined ? {} : { rate }),
        }),
      busyOf: { simulator: stack.simulators.pid },
    })),
    {
      rounds,
      seconds,
      warmupSeconds: 3,
      onRound: (round, line) =>
        console.log(
          `round ${round + 1}: ${line.map(([name, run]) => describeRun(name, run)).join(' | ')}`,
        ),
    },
  );
  for (const [name, measured] of runs) {
    const { median, min, max } = spreadOf(measured.map((run) => run.cpuMsPerOp));
    console.log(
      `${name}: median ${median.toFixed(3)} ms/op (min ${min.toFixed(3)}, max ${max.toFixed(3)})`,
    );
  }
  for (const [name, stack] of stacks) {
    const idle = idleRss.get(name) ?? Number.NaN;
    const peak = statusMiB(stack.gateway.pid, 'VmHWM');
    const now = statusMiB(stack.gateway.pid, 'VmRSS');
    console.log(
      `${name}: RSS idle ${idle.toFixed(1)} MiB, peak ${peak.toFixed(1)} MiB (${(peak / idle).toFixed(2)}x idle), at the end ${now.toFixed(1)} MiB`,
    );
  }
} finally {
  for (const [, stack] of stacks) await stack.close();
}

/** A size from /proc/<pid>/status, MiB. */
function statusMiB(pid: number, key: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
}
