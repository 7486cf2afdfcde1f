import { parseArgs } from 'node:util';

export const scenarioNames = [
  'overhead',
  'features',
  'upstream-limit',
  'flat-50',
  'knee',
  'batching',
  'fan-out',
  'caching',
  'soak',
  'large-xml',
  'providers',
] as const;
export type ScenarioName = (typeof scenarioNames)[number];

/** The default run (every scenario, default durations) must stay under 12 minutes. */
export const defaultRunLimitSeconds = 720;

export interface BenchOptions {
  quick: boolean;
  /** Measured seconds of each load row. */
  rowSeconds: number;
  /** Discarded warm-up seconds before each load row. */
  warmupSeconds: number;
  soakSeconds: number;
  soakWarmupSeconds: number;
  /** Soaks run one after the other, each with a fresh gateway; judged on their median. */
  soakRuns: number;
  /** Operations per second during the soak (a fixed rate, so that memory is compared at equal load). */
  soakRate: number;
  /** Runs of the knee scenario's adaptive row, each with a fresh gateway; every one must pass. */
  kneeRuns: number;
  /** Sequential operations per count or timing scenario. */
  samples: number;
  only: readonly ScenarioName[];
  /** Write BENCHMARKS.md (off with --no-write). */
  write: boolean;
  /** Pin processes to cores when taskset allows (off with --no-pin). */
  pin: boolean;
  /** Directory for the gateway's CPU profiles (`--cpu-prof`), or undefined. */
  cpuProfileDir: string | undefined;
  /** As given on the command line, for the report. */
  argv: readonly string[];
}

export const usage = `npm run bench -- [flags]
  --quick              a short smoke run (about a minute)
  --soak-seconds <n>   length of each soak (default 45; 20 with --quick)
  --soak-runs <n>      soaks, each with a fresh gateway, judged on their median (default 3; 1 with --quick)
  --soak-rate <n>      soak operations per second (default 400)
  --knee-runs <n>      runs of the knee scenario at the defaults, each with a fresh gateway, all to pass (default 5; 1 with --quick)
  --row-seconds <n>    measured seconds per load row (default 8; 2 with --quick)
  --only <list>        scenarios, comma-separated: ${scenarioNames.join(', ')};
                       BENCHMARKS.md keeps the other scenarios' sections as they were
                       (the default run, all of them, takes under 12 minutes)
  --no-write           print only; leave BENCHMARKS.md alone
  --no-pin             never pin processes to cores
  --cpu-prof <dir>     run every gateway with --cpu-prof, profiles into <dir>
  --help               this text`;

export function parseBenchOptions(argv: readonly string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      'soak-seconds': { type: 'string' },
      'soak-runs': { type: 'string' },
      'soak-rate': { type: 'string' },
      'knee-runs': { type: 'string' },
      'row-seconds': { type: 'string' },
      only: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
      'no-pin': { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const quick = values.quick;
  const positive = (name: string, raw: string | undefined, fallback: number): number => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < 1) throw new Error(`--${name} must be a whole number from 1`);
    return n;
  };
  const only = (values.only?.split(',') ?? [...scenarioNames]).map((name) => name.trim());
  for (const name of only) {
    if (!scenarioNames.includes(name as ScenarioName)) {
      throw new Error(`--only: unknown scenario "${name}" (${scenarioNames.join(', ')})`);
    }
  }
  const soakSeconds = positive('soak-seconds', values['soak-seconds'], quick ? 20 : 45);
  return {
    quick,
    rowSeconds: positive('row-seconds', values['row-seconds'], quick ? 2 : 8),
    warmupSeconds: quick ? 1 : 2,
    soakSeconds,
    // 20 s before each default soak (RSS settles in about 15 s), 2 s before each row: the default
    // run, with the features, providers and five knee runs of issue 36, stays under 12 minutes
    soakWarmupSeconds: quick ? 5 : Math.min(45, Math.max(20, Math.round(soakSeconds / 3))),
    soakRuns: positive('soak-runs', values['soak-runs'], quick ? 1 : 3),
    soakRate: positive('soak-rate', values['soak-rate'], 400),
    kneeRuns: positive('knee-runs', values['knee-runs'], quick ? 1 : 5),
    samples: quick ? 10 : 30,
    only: only as ScenarioName[],
    write: !values['no-write'],
    pin: !values['no-pin'],
    cpuProfileDir: values['cpu-prof'],
    argv,
  };
}
