import { startBenchStack } from '../bench-stack.ts';
import { watchFullGcs } from '../gc-trace.ts';
import { fmt, type BenchContext } from '../bench-context.ts';
import { runLoad } from '../load.ts';
import type { LoadResult, LoadSpec } from '../load-spec.ts';
import { memoryPrefix, type MemorySample } from '../memory-sample.ts';
import { residentBytes, sleep } from '../processes.ts';
import type { Section } from '../report.ts';
import { median } from '../stats.ts';

const faultProbability = 0.05;
const connections = 16;

/** The mix: reads over every upstream, one operation needing all three, one refused input. */
const operations: Record<string, string> = {
  workflows: '{ workflows(first: 20) { nodes { id name version } totalCount } }',
  workflow:
    '{ workflow(id: "bdd640fb-0667-4ad1-9c80-317fa3b1799d") { name inputParameters { name type } } }',
  catalogItems: '{ catalogItems(first: 20) { nodes { name provider { name } } } }',
  providerByName: '{ providerByName(name: "iaas-service") { id } }',
  providers: '{ providers(first: 10) { nodes { id name } totalCount } }',
  ipSets: '{ ipSets { id name addresses } }',
  services: '{ services { id name protocol } }',
  fanOut:
    '{ workflows(first: 5) { nodes { id } } catalogItems(first: 5) { nodes { id } } ipSets { id } }',
  badInput: '{ workflow(id: "no such/id") { name } }',
};

/** One soak: a fresh gateway, warmed up, then loaded at a fixed rate. */
interface SoakRun {
  result: LoadResult;
  warmupResponses: number;
  /** VmRSS in bytes: before any load, after the warm-up, at the end, and the most seen during the soak. */
  idle: number;
  baseline: number;
  end: number;
  peak: number;
  /** Heap live after each full GC during the soak (MB). */
  liveAfterFullGcs: number[];
  /** What the resident memory was made of at the end (the gateway's memory probe). */
  composition: MemorySample | undefined;
  stillServing: boolean;
}

const growthOf = (run: SoakRun): number => run.end / run.baseline - 1;
const peakOverIdle = (run: SoakRun): number => run.peak / run.idle;

async function soakOnce(ctx: BenchContext, index: number): Promise<SoakRun> {
  const { options } = ctx;
  const stack = await startBenchStack({
    simulators: { faultProbability },
    nodeFlags: [...ctx.gatewayFlags, '--trace-gc', '--import', './test/bench/memory-probe.ts'],
  });
  const fullGcs = watchFullGcs(stack.gateway.child.stdout);
  let composition: MemorySample | undefined;
  let partial = '';
  stack.gateway.child.stderr?.on('data', (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith(memoryPrefix)) {
        composition = JSON.parse(line.slice(memoryPrefix.length)) as MemorySample;
      }
    }
  });
  try {
    const spec = (seconds: number): LoadSpec => ({
      url: `${stack.gatewayOrigin}/graphql`,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      connections,
      rate: options.soakRate,
      durationSeconds: seconds,
      warmupSeconds: 0,
      requests: Object.values(operations).map((query) => ({
        method: 'POST',
        path: '/graphql',
        body: JSON.stringify({ query }),
      })),
      verify: 'graphql-contract',
    });
    const idle = residentBytes(stack.gateway.pid);
    ctx.log(
      `soak ${index + 1}/${options.soakRuns}: warm-up ${options.soakWarmupSeconds} s, then ${options.soakSeconds} s`,
    );
    const warmup = await runLoad(spec(options.soakWarmupSeconds));
    const baseline = residentBytes(stack.gateway.pid);
    const gcsBefore = fullGcs.length;
    const samples: number[] = [baseline];
    const sampler = setInterval(() => samples.push(residentBytes(stack.gateway.pid)), 1000);
    let result: LoadResult;
    try {
      result = await runLoad(spec(options.soakSeconds), { cpuOf: stack.gateway.pid });
    } finally {
      clearInterval(sampler);
    }
    const end = residentBytes(stack.gateway.pid);
    samples.push(end);
    // the probe's next line, for the composition at the end
    await sleep(1100);
    return {
      result,
      warmupResponses: warmup.responses,
      idle,
      baseline,
      end,
      peak: Math.max(...samples),
      liveAfterFullGcs: fullGcs.slice(gcsBefore),
      composition,
      stillServing: (await fetch(`${stack.gatewayOrigin}/health`)).status === 200,
    };
  } finally {
    await stack.close();
  }
}

/** Resident memory at its peak under steady load over idle (issue 36). */
const maxPeakOverIdle = 1.5;

/** Runs of mixed operations with 5% upstream faults: every answer a contract answer, memory flat and bounded. */
export async function soak(ctx: BenchContext): Promise<Section> {
  const { options } = ctx;
  const runs: SoakRun[] = [];
  for (let index = 0; index < options.soakRuns; index += 1) runs.push(await soakOnce(ctx, index));
  // V8 sizes its heap over the first tens of seconds under load: a short run says little
  const judged = options.soakSeconds >= 45 && options.soakWarmupSeconds >= 20;
  const growth = median(runs.map(growthOf));
  const ratio = median(runs.map(peakOverIdle));
  const middle = [...runs].sort((a, b) => growthOf(a) - growthOf(b))[Math.floor(runs.length / 2)];
  const answered = runs.reduce((sum, run) => sum + run.result.responses, 0);
  const mismatches = runs.reduce((sum, run) => sum + run.result.mismatches, 0);
  const unanswered = runs.reduce((sum, run) => sum + run.result.errors, 0);
  const timeouts = runs.reduce((sum, run) => sum + run.result.timeouts, 0);
  const codes = new Map<string, number>();
  for (const run of runs) {
    for (const [code, count] of Object.entries(run.result.verified?.codes ?? {})) {
      codes.set(code, (codes.get(code) ?? 0) + count);
    }
  }
  const firstBad = runs.flatMap((run) => run.result.verified?.bad ?? [])[0];
  const live = (run: SoakRun): string => {
    const gcs = run.liveAfterFullGcs;
    return gcs.length === 0
      ? 'no full GC'
      : `${gcs[0] ?? 0} / ${gcs.at(-1) ?? 0} / ${Math.max(...gcs)} MB (${gcs.length})`;
  };
  const perRun = (label: string, cell: (run: SoakRun) => string): string[] => [
    label,
    ...runs.map(cell),
  ];
  const mib = (value: number | undefined): string =>
    value === undefined ? 'n/a' : `${value.toFixed(1)} MiB`;
  const parts = middle?.composition;
  return {
    title: 'Soak',
    method: [
      `${options.soakRuns} runs, each with a gateway of its own started as \`npm start\` starts it: ${options.soakWarmupSeconds} s of warm-up, then ${options.soakSeconds} s of mixed operations at ${connections} connections, each cycling through ${Object.keys(operations).length} operations (${Object.keys(operations).join(', ')}; \`badInput\` is refused by the gateway itself). Growth and peak are judged on the median of the runs.`,
      `Every simulator fails ${faultProbability * 100}% of requests (500, 503, connection reset, malformed body, in equal shares; the gateway retries reads on 503 and resets). Every body is checked: data, or errors whose \`extensions.code\` is one of the runtime contract's.`,
      `A fixed rate of ${options.soakRate} operations/s (\`--soak-rate\`), so that memory is compared at equal load: V8 sizes its heap to the allocation rate, and RSS follows the load as much as any leak.`,
      "Resident memory (VmRSS of the gateway's process) is read before any load (idle), right after the warm-up, every second during the soak and at its end. The gateway runs with `--trace-gc` (the heap still live after each full GC is the leak signal: flat means no leak, whatever RSS does) and a bench-only probe (`test/bench/memory-probe.ts`) that tells what the RSS is made of.",
    ],
    table: {
      head: ['measure', ...runs.map((_, index) => `run ${index + 1}`)],
      rows: [
        perRun('operations answered (warm-up not counted)', (run) =>
          fmt.rate(run.result.responses),
        ),
        perRun('ops/s', (run) => fmt.rate(run.result.rate)),
        perRun('answers with errors', (run) => fmt.rate(run.result.verified?.withErrors ?? 0)),
        perRun('gateway CPU ms/op', (run) => fmt.ms(run.result.cpuMsPerOp ?? Number.NaN)),
        perRun(
          'p50 / p99 ms',
          (run) => `${fmt.ms(run.result.latencyMs.p50)} / ${fmt.ms(run.result.latencyMs.p99)}`,
        ),
        perRun('RSS idle, before any load', (run) => fmt.mib(run.idle)),
        perRun('RSS after warm-up', (run) => fmt.mib(run.baseline)),
        perRun('RSS at the end', (run) => fmt.mib(run.end)),
        perRun('growth after warm-up', (run) => fmt.percent(growthOf(run))),
        perRun(
          'RSS peak during the soak (x idle)',
          (run) => `${fmt.mib(run.peak)} (${peakOverIdle(run).toFixed(2)}x)`,
        ),
        perRun('V8 heap live after full GCs: first / last / max (GCs)', live),
        [
          'error codes seen, all runs (count of errors)',
          codes.size === 0
            ? 'none'
            : [...codes]
                .sort(([, a], [, b]) => b - a)
                .map(([code, count]) => `${code} ${count}`)
                .join(', '),
        ],
        [
          'RSS at the end of the median run, by kind',
          parts === undefined
            ? 'n/a'
            : `V8 young generation ${mib(parts.newSpace)}, old generation ${mib(parts.oldSpace)}, other V8 spaces ${mib(parts.otherSpaces)}, external (Buffers) ${mib(parts.external)}, the rest of the anonymous pages (V8's free pages kept, the allocator, stacks) ${mib(parts.anon - parts.newSpace - parts.oldSpace - parts.otherSpaces - parts.external)}, file-backed (the node binary) ${mib(parts.file)}`,
        ],
        ...(firstBad === undefined ? [] : [['first answer outside the contract', firstBad]]),
      ],
    },
    checks: [
      {
        what: 'every request answered with data or a contract error',
        measured: `${fmt.rate(answered)} answered, ${mismatches} outside the contract, ${unanswered} unanswered (${timeouts} timeouts)`,
        target: '0 outside, 0 unanswered',
        pass:
          mismatches === 0 &&
          unanswered === 0 &&
          answered > 0 &&
          runs.every((run) => run.stillServing),
      },
      {
        what: `resident memory growth after warm-up, median of ${runs.length}`,
        measured: `${fmt.percent(growth)} (${runs.map((run) => fmt.percent(growthOf(run))).join(', ')})`,
        target: judged
          ? '< 10%'
          : '< 10% (not judged: a soak under 45 s, or under 20 s of warm-up)',
        pass: judged ? growth < 0.1 : null,
      },
      {
        what: `resident memory under load over idle, median of ${runs.length}`,
        measured: `${ratio.toFixed(2)}x (${runs.map((run) => `${fmt.mib(run.peak)} / ${fmt.mib(run.idle)}`).join(', ')})`,
        target: judged
          ? `≤ ${maxPeakOverIdle}x`
          : `≤ ${maxPeakOverIdle}x (not judged: a soak under 45 s, or under 20 s of warm-up)`,
        pass: judged ? ratio <= maxPeakOverIdle : null,
      },
    ],
  };
}
