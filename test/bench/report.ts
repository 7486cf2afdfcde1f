import { startFlags } from './processes.ts';
import { fmt } from './bench-context.ts';
import { defaultRunLimitSeconds } from './bench-options.ts';
import type { Machine } from './machine.ts';

/** One target of the issue, with what was measured. */
export interface Check {
  what: string;
  measured: string;
  target: string;
  /** null: nothing to judge (informational, or could not be measured). */
  pass: boolean | null;
}

export interface Section {
  title: string;
  /** Short notes on how it was measured. */
  method: string[];
  /** The detailed figures. */
  table: { head: string[]; rows: string[][] };
  checks: Check[];
}

export interface Run {
  machine: Machine;
  /** 1-minute load average before and after the run: other work skews latency and throughput. */
  load: { start: number; end: number };
  /** The machine's CPU time the hypervisor stole over the whole run (0..1), where /proc/stat tells. */
  stealShare: number | undefined;
  pinning: string;
  options: string;
  durationSeconds: number;
  /** Wall time of each scenario, in the order they ran. */
  scenarioSeconds: { name: string; seconds: number }[];
  sections: Section[];
}

const verdict = (pass: boolean | null): string => (pass === null ? 'n/a' : pass ? 'PASS' : 'FAIL');

function markdownTable(head: readonly string[], rows: readonly string[][]): string {
  const escape = (cell: string): string => cell.replaceAll('|', '\\|');
  return [
    `| ${head.map(escape).join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(escape).join(' | ')} |`),
  ].join('\n');
}

/** The console summary: every target, measured figure and verdict. */
export function consoleSummary(run: Run): string {
  const head = ['scenario', 'target', 'measured', 'goal', 'result'];
  const rows = run.sections.flatMap((section) =>
    section.checks.map((check) => [
      section.title,
      check.what,
      check.measured,
      check.target,
      verdict(check.pass),
    ]),
  );
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function sectionText(section: Section): string {
  return [
    `## ${section.title}`,
    '',
    markdownTable(
      ['target', 'measured', 'goal', 'result'],
      section.checks.map((c) => [c.what, c.measured, c.target, verdict(c.pass)]),
    ),
    '',
    markdownTable(section.table.head, section.table.rows),
    '',
    ...section.method.map((line) => `- ${line}`),
    '',
  ].join('\n');
}

export function benchmarksMarkdown(run: Run): string {
  const { machine } = run;
  const checks = run.sections.flatMap((s) => s.checks);
  const passed = checks.filter((c) => c.pass === true).length;
  const judged = checks.filter((c) => c.pass !== null).length;
  return [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (`test/bench/run.ts`); do not edit by hand. Every',
    `scenario runs the gateway (\`node ${startFlags().join(' ')} src/main.ts\`, as \`npm start\``,
    'does) and the upstream simulators (`node simulators/cli.ts`) as separate',
    'processes and talks real HTTP over loopback; load comes from',
    '[autocannon](https://github.com/mcollina/autocannon), run in a process of its own.',
    '',
    markdownTable(
      ['', ''],
      [
        ['date', machine.date],
        ['CPU', machine.cpu],
        ['cores', String(machine.cores)],
        ['memory', `${machine.memoryGiB} GiB`],
        ['Node.js', machine.node],
        ['OS', machine.os],
        [
          'load average (1 min) at start / end',
          `${run.load.start.toFixed(2)} / ${run.load.end.toFixed(2)}`,
        ],
        ['host steal over the run', fmt.share(run.stealShare)],
        ['core pinning', run.pinning],
        ['options', run.options],
        [
          'run time',
          `${Math.round(run.durationSeconds)} s${run.options === '(defaults)' ? ` (the default run: under ${defaultRunLimitSeconds} s wanted)` : ''}; ${run.scenarioSeconds.map(({ name, seconds }) => `${name} ${Math.round(seconds)} s`).join(', ')}`,
        ],
        ['targets met', `${passed} of ${judged}`],
      ],
    ),
    '',
    ...run.sections.map(sectionText),
    '## Common method',
    '',
    '- The gateway runs at its defaults, as users run it: the request log on (`LOG_LEVEL=info`,',
    '  one JSON line per request on stdout, which the bench reads from a pipe and discards), the',
    '  upstream concurrency limits and every other setting as shipped, unless a section says',
    '  otherwise. The section on per-request features shows what each of them costs.',
    "- Latency percentiles are computed from autocannon's own per-response timings (it",
    '  records them with sub-millisecond precision; its histogram keeps whole milliseconds).',
    '  Throughput is responses divided by the measured time. Each load row is preceded by a',
    '  discarded warm-up run of the same shape, unless its section says otherwise.',
    "- Upstream call counts come from the simulators' process (a loopback control port of",
    '  `simulators/cli.ts` serving request counts by method and path).',
    '- Latency and throughput depend on what else the machine runs (see the load average',
    '  above); CPU ms per operation, read from /proc/<pid>/stat, much less so.',
    '- `npm run bench -- --quick` is a one-minute smoke run; `--help` lists the flags',
    '  (`--only`, `--row-seconds`, `--soak-seconds`, `--soak-runs`, `--soak-rate`, `--no-pin`, `--no-write`).',
    '  `--cpu-prof <dir>` profiles every gateway it starts; `node test/bench/profile-summary.ts',
    '  <file>.cpuprofile` then shows where the time went.',
    '- The simulators can be started on their own, for a gateway or a client of your own:',
    '  `node simulators/cli.ts --help`.',
    '',
  ].join('\n');
}

/** A markdown document cut at its `## ` headings: what comes before the first, then each section by title. */
function sectionsOf(markdown: string): { preamble: string; sections: Map<string, string> } {
  const parts = markdown.split(/^(?=## )/m);
  const sections = new Map<string, string>();
  for (const part of parts.slice(1)) {
    sections.set(part.slice(3, part.indexOf('\n')).trim(), part);
  }
  return { preamble: parts[0] ?? '', sections };
}

/**
 * BENCHMARKS.md after a run of some scenarios only (`--only`): the fresh
 * header and sections, every other section kept as the earlier run wrote it,
 * in its place.
 */
export function mergeBenchmarks(previous: string, fresh: string): string {
  const before = sectionsOf(previous);
  const now = sectionsOf(fresh);
  const common = 'Common method';
  const merged: string[] = [];
  for (const [title, text] of before.sections) {
    if (title !== common) merged.push(now.sections.get(title) ?? text);
  }
  for (const [title, text] of now.sections) {
    if (title !== common && !before.sections.has(title)) merged.push(text);
  }
  const note =
    '\nThis run measured only some scenarios (`--only`, see options); the sections of the\nothers are kept as an earlier run wrote them (see the git history of this file).\n\n';
  return [
    now.preamble.trimEnd(),
    '\n',
    note,
    ...merged,
    now.sections.get(common) ?? before.sections.get(common) ?? '',
  ].join('');
}
