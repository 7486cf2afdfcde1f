/**
 * `npm run bench`: the gateway, the simulators and the load generator as
 * separate processes over loopback HTTP; prints a table and rewrites
 * BENCHMARKS.md. `npm run bench -- --help` for the flags.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import type { BenchContext } from './bench-context.ts';
import {
  defaultRunLimitSeconds,
  parseBenchOptions,
  scenarioNames,
  usage,
  type ScenarioName,
} from './bench-options.ts';
import { cpuTicks, describeMachine, stealShare } from './machine.ts';
import { pinningAvailable, root } from './processes.ts';
import {
  benchmarksMarkdown,
  consoleSummary,
  mergeBenchmarks,
  sectionText,
  type Run,
  type Section,
} from './report.ts';
import { batching } from './scenarios/batching.ts';
import { caching } from './scenarios/caching.ts';
import { flat50, kneeScenario } from './scenarios/adaptive-concurrency.ts';
import { fanOut } from './scenarios/fan-out.ts';
import { features } from './scenarios/features.ts';
import { largeXml } from './scenarios/large-xml.ts';
import { overhead } from './scenarios/overhead.ts';
import { providers } from './scenarios/providers.ts';
import { soak } from './scenarios/soak.ts';
import { upstreamLimit } from './scenarios/upstream-limit.ts';

const scenarios: Record<ScenarioName, (ctx: BenchContext) => Promise<Section>> = {
  overhead,
  features,
  'upstream-limit': upstreamLimit,
  'flat-50': flat50,
  knee: kneeScenario,
  batching,
  'fan-out': fanOut,
  caching,
  soak,
  'large-xml': largeXml,
  providers,
};

async function main(): Promise<number> {
  let options: ReturnType<typeof parseBenchOptions>;
  try {
    options = parseBenchOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
    return 2;
  }
  if (options === 'help') {
    console.log(usage);
    return 0;
  }
  const started = performance.now();
  const loadAtStart = loadavg()[0] ?? 0;
  const ticksAtStart = cpuTicks();
  const machine = describeMachine();
  const pinning = options.pin && machine.cores >= 2 && pinningAvailable();
  const gatewayFlags: string[] = [];
  if (options.cpuProfileDir !== undefined) {
    const dir = resolve(options.cpuProfileDir);
    mkdirSync(dir, { recursive: true });
    gatewayFlags.push('--cpu-prof', '--cpu-prof-dir', dir);
  }
  const ctx: BenchContext = {
    options,
    pinning,
    gatewayFlags,
    log: (message) => process.stderr.write(`[bench] ${message}\n`),
  };
  ctx.log(
    `${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; pinning ${pinning ? 'on' : 'off'}`,
  );
  const sections: Section[] = [];
  const scenarioSeconds: Run['scenarioSeconds'] = [];
  for (const name of options.only) {
    const scenarioStarted = performance.now();
    const section = await scenarios[name](ctx).catch((error: unknown) => crashed(name, error));
    const seconds = (performance.now() - scenarioStarted) / 1000;
    sections.push(section);
    scenarioSeconds.push({ name, seconds });
    ctx.log(`${name}: done in ${Math.round(seconds)} s\n${sectionText(section)}`);
  }
  const run = {
    machine,
    load: { start: loadAtStart, end: loadavg()[0] ?? 0 },
    stealShare: stealShare(ticksAtStart, cpuTicks()),
    pinning: pinning
      ? 'taskset: at 50 and 100 connections the process under test on core 1, autocannon and the rest on core 0'
      : options.pin
        ? 'none (taskset unavailable or a single core)'
        : 'none (--no-pin)',
    options: options.argv.length === 0 ? '(defaults)' : options.argv.join(' '),
    durationSeconds: (performance.now() - started) / 1000,
    scenarioSeconds,
    sections,
  };
  console.log(consoleSummary(run));
  if (isDefaultRun(options.argv) && run.durationSeconds > defaultRunLimitSeconds) {
    ctx.log(
      `the default run took ${Math.round(run.durationSeconds)} s, over its ${defaultRunLimitSeconds} s`,
    );
  }
  if (options.write) {
    const file = resolve(root, 'BENCHMARKS.md');
    const partial = scenarioNames.some((name) => !options.only.includes(name));
    const markdown = benchmarksMarkdown(run);
    writeFileSync(
      file,
      partial && existsSync(file)
        ? mergeBenchmarks(readFileSync(file, 'utf8'), markdown)
        : markdown,
    );
    ctx.log('BENCHMARKS.md written');
  }
  const failed = sections.flatMap((s) => s.checks).filter((c) => c.pass === false).length;
  return failed === 0 ? 0 : 1;
}

function isDefaultRun(argv: readonly string[]): boolean {
  return argv.every((arg) => arg === '--no-write' || arg === '--no-pin');
}

/** A scenario that could not run: reported as a failed target, the others still run. */
function crashed(name: string, error: unknown): Section {
  const message = error instanceof Error ? error.message : String(error);
  return {
    title: name,
    method: [],
    table: { head: ['error'], rows: [[message.slice(0, 2000)]] },
    checks: [
      {
        what: 'the scenario ran',
        measured: message.slice(0, 120),
        target: 'no error',
        pass: false,
      },
    ],
  };
}

process.exit(await main());
