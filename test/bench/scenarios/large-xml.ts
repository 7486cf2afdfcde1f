import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { startBenchStack, type BenchStack } from '../bench-stack.ts';
import { fmt, type BenchContext } from '../bench-context.ts';
import { watchFullGcs } from '../gc-trace.ts';
import { expectData, gql } from '../graphql-client.ts';
import { runLoad } from '../load.ts';
import type { LoadResult } from '../load-spec.ts';
import { collectStdout, pin, residentBytes, spawnNode, startFlags } from '../processes.ts';
import type { Section } from '../report.ts';
import { summarize } from '../stats.ts';
import type { PhaseName, XmlPhases } from '../xml-phases.ts';

const mib = 2 ** 20;
const firewallBytes = 5 * mib;
const phaseSizes = [1 * mib, 5 * mib];
const smallRate = 20;
const smallQuery = '{ workflows(first: 1) { nodes { id name } } }';
const firewallRoute = '/api/2.0/app/firewall/{contextId}/config';
/** What the gateway's preload (loop-delay.ts) starts its lines with. */
const loopDelayPrefix = 'bench-loop-delay ';

const edit = (k: number): string =>
  `mutation { addApplicationFirewallRule(portGroupId: "dvportgroup-63", position: 0, rule: { action: "allow", logged: true, notes: "bench edit ${k}", source: { address: { containerId: "ipset-3" } }, destination: { application: { applicationSetId: "application-400" } } }) { generationNumber } }`;

interface LoopDelay {
  at: number;
  maxMs: number;
  p99Ms: number;
  busyMs: number;
}

/** The gateway's event-loop delay lines (see loop-delay.ts), as they come. */
function watchLoopDelay(stack: BenchStack): LoopDelay[] {
  const lines: LoopDelay[] = [];
  let partial = '';
  stack.gateway.child.stderr?.on('data', (text: string) => {
    const all = (partial + text).split('\n');
    partial = all.pop() ?? '';
    for (const line of all) {
      if (line.startsWith(loopDelayPrefix)) {
        lines.push(JSON.parse(line.slice(loopDelayPrefix.length)) as LoopDelay);
      }
    }
  });
  return lines;
}

/** Peak resident memory since the last reset (VmHWM), and its reset (clear_refs 5). */
function peakResident(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmHWM for ${pid}`);
  return Number(kb) * 1024;
}

function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** Mean duration (ms) and count of the gateway's calls on `route` by method, from /metrics. */
async function upstreamCalls(
  origin: string,
  route: string,
): Promise<Record<string, { count: number; meanMs: number }>> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const tally: Record<string, { count: number; sum: number }> = {};
  for (const line of text.split('\n')) {
    const match = /^upstream_request_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/.exec(line);
    if (match === null || !match[2]?.includes(`route="${route}"`)) continue;
    const method = /method="([A-Z]+)"/.exec(match[2])?.[1] ?? '?';
    const entry = (tally[method] ??= { count: 0, sum: 0 });
    if (match[1] === 'count') entry.count += Number(match[3]);
    else entry.sum += Number(match[3]);
  }
  return Object.fromEntries(
    Object.entries(tally).map(([method, { count, sum }]) => [
      method,
      { count, meanMs: count === 0 ? Number.NaN : (sum * 1000) / count },
    ]),
  );
}

async function phases(bytes: number): Promise<XmlPhases> {
  const child = spawnNode('xml phases', ['--expose-gc', 'test/bench/xml-phases.ts', String(bytes)]);
  const { stdout, code } = await collectStdout(child);
  if (code !== 0) throw new Error(`xml-phases exited ${code}: ${child.stderrTail()}`);
  return JSON.parse(stdout.trim()) as XmlPhases;
}

/** The firewall answer as the gateway receives it, for its size. */
async function firewallBody(stack: BenchStack): Promise<number> {
  const { url, username, password } = stack.upstreams.nsx;
  const response = await fetch(`${url}/api/2.0/app/firewall/dvportgroup-63/config`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
    },
  });
  return (await response.arrayBuffer()).byteLength;
}

interface EditRun {
  bodyBytes: number;
  seconds: number;
  edits: number[];
  failures: string[];
  small: LoadResult;
  loopMax: number;
  loopP99: number;
  busy: number;
  liveAfterGc: number[];
  idle: number;
  afterWarmup: number;
  peak: number;
  calls: Record<string, { count: number; meanMs: number }>;
}

/** Edits in a loop beside the steady small query, against a gateway as `npm start` runs it plus `flags`. */
async function editRun(ctx: BenchContext, flags: readonly string[]): Promise<EditRun> {
  const stack = await startBenchStack({
    simulators: { nsxFirewallBytes: firewallBytes },
    nodeFlags: [
      ...ctx.gatewayFlags,
      ...flags,
      '--trace-gc',
      '--import',
      './test/bench/loop-delay.ts',
    ],
  });
  const delays = watchLoopDelay(stack);
  const fullGcs = watchFullGcs(stack.gateway.child.stdout);
  try {
    if (ctx.pinning) {
      for (const process of [stack.simulators, stack.nsxSimulator, stack.gateway]) {
        if (process !== undefined) pin(process.pid, process === stack.gateway ? '1' : '0');
      }
      pin(globalThis.process.pid, '0');
    }
    const bodyBytes = await firewallBody(stack);
    expectData(await gql(stack.gatewayOrigin, smallQuery), 'small query');
    const idle = residentBytes(stack.gateway.pid);
    ctx.log(`large-xml: ${fmt.mib(bodyBytes)} configuration, warm-up edits`);
    let k = 0;
    for (let i = 0; i < 2; i++) expectData(await gql(stack.gatewayOrigin, edit(++k)), 'edit');
    const afterWarmup = residentBytes(stack.gateway.pid);
    const gcsBefore = fullGcs.length;

    const seconds = Math.max(10, 2 * ctx.options.rowSeconds);
    const edits: number[] = [];
    const failures: string[] = [];
    let running = true;
    let loop: Promise<void> = Promise.resolve();
    const window = { from: 0, to: 0 };
    ctx.log(`large-xml: ${seconds} s of edits beside ${smallRate} small queries/s`);
    const small = await runLoad(
      {
        url: `${stack.gatewayOrigin}/graphql`,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: smallQuery }),
        connections: 4,
        rate: smallRate,
        durationSeconds: seconds,
        warmupSeconds: ctx.options.warmupSeconds,
        verify: 'graphql-data',
        rawLatencies: true,
      },
      {
        cores: ctx.pinning ? '0' : undefined,
        measuredRun: {
          before: () => {
            resetPeak(stack.gateway.pid);
            window.from = Date.now();
            loop = (async () => {
              while (running) {
                const answer = await gql(stack.gatewayOrigin, edit(++k));
                if (answer.errors === undefined && answer.data != null) edits.push(answer.ms);
                else failures.push(JSON.stringify(answer.errors ?? answer.status).slice(0, 300));
              }
            })();
            return Promise.resolve();
          },
          after: async () => {
            running = false;
            await loop;
            window.to = Date.now();
          },
        },
      },
    );
    // the last line may come up to 500 ms after the window
    await new Promise((resolve) => setTimeout(resolve, 600));
    const during = delays.filter((d) => d.at > window.from && d.at <= window.to + 500);
    return {
      bodyBytes,
      seconds,
      edits,
      failures,
      small,
      loopMax: during.length === 0 ? Number.NaN : Math.max(...during.map((d) => d.maxMs)),
      loopP99: during.length === 0 ? Number.NaN : Math.max(...during.map((d) => d.p99Ms)),
      busy: during.length === 0 ? Number.NaN : Math.max(...during.map((d) => d.busyMs)),
      liveAfterGc: fullGcs.slice(gcsBefore),
      idle,
      afterWarmup,
      peak: peakResident(stack.gateway.pid),
      calls: await upstreamCalls(stack.gatewayOrigin, firewallRoute),
    };
  } finally {
    await stack.close();
  }
}

function editRows(run: EditRun): string[][] {
  const stats = summarize(run.edits);
  const latencies = run.small.latencyMs;
  return [
    ['edits done / failed', `${run.edits.length} / ${run.failures.length}`],
    ['edit duration p50 / max ms', `${fmt.ms(stats.p50)} / ${fmt.ms(stats.max)}`],
    ...Object.entries(run.calls).map(([method, call]) => [
      `upstream ${method} of the configuration: calls, mean ms`,
      `${call.count}, ${fmt.ms(call.meanMs)}`,
    ]),
    [
      'small query p50 / p99 / max ms',
      `${fmt.ms(latencies.p50)} / ${fmt.ms(latencies.p99)} / ${fmt.ms(latencies.max)}`,
    ],
    [
      'small queries answered / bad',
      `${fmt.rate(run.small.responses)} / ${run.small.mismatches + run.small.errors}`,
    ],
    [
      "gateway's event-loop delay (wall): max / worst 500 ms p99",
      `${fmt.ms(run.loopMax)} / ${fmt.ms(run.loopP99)}`,
    ],
    ["gateway's longest busy stretch (main-thread CPU between two 10 ms ticks)", fmt.ms(run.busy)],
    [
      'V8 heap live after full GCs during the edits: min / max',
      run.liveAfterGc.length === 0
        ? 'no full GC'
        : `${Math.min(...run.liveAfterGc)} / ${Math.max(...run.liveAfterGc)} MB (${run.liveAfterGc.length} GCs)`,
    ],
    [
      'gateway RSS idle / after warm-up / peak during the edits',
      `${fmt.mib(run.idle)} / ${fmt.mib(run.afterWarmup)} / ${fmt.mib(run.peak)}`,
    ],
    [
      'peak over idle, against the body size',
      `${fmt.mib(run.peak - run.idle)} (${((run.peak - run.idle) / run.bodyBytes).toFixed(1)}x)`,
    ],
    ['host steal during the edits', fmt.share(run.small.stealShare)],
    ...(run.failures.length === 0 ? [] : [['first failed edit', run.failures[0] ?? '']]),
  ];
}

/**
 * Firewall edits on a 5 MB configuration while another client runs a small
 * query at a steady rate: the edit completes, the small query stays fast,
 * the gateway's event loop is never held up long, its memory stays bounded.
 * The gateway as `npm start` runs it.
 */
export async function largeXml(ctx: BenchContext): Promise<Section> {
  const load = loadavg()[0] ?? 0;
  ctx.log('large-xml: phases of 1 MB and 5 MB configurations');
  const measured: XmlPhases[] = [];
  for (const bytes of phaseSizes) measured.push(await phases(bytes));
  const plain = await editRun(ctx, []);
  const loadAfter = loadavg()[0] ?? 0;
  const p = (name: PhaseName, phase: XmlPhases): string =>
    `${fmt.ms(phase.ms[name])} (${fmt.ms(phase.cpuMs[name])})`;
  const plainRows = editRows(plain);
  const memoryCheck = (run: EditRun, how: string) => ({
    what: `gateway peak memory over idle during the edits, ${how}`,
    measured: `${fmt.mib(run.peak - run.idle)} (${((run.peak - run.idle) / run.bodyBytes).toFixed(1)}x of ${fmt.mib(run.bodyBytes)})`,
    target: '≤ 10x the body',
    pass: run.peak - run.idle <= 10 * run.bodyBytes,
  });
  const latencies = plain.small.latencyMs;
  return {
    title: 'Large XML',
    method: [
      `Load average (1 min) at the start / end of this scenario: ${load.toFixed(2)} / ${loadAfter.toFixed(2)} on ${cpus().length} cores: other work shared the machine, and every wall time here includes waits for a core.`,
      `Where the time and memory of one firewall edit go (\`test/bench/xml-phases.ts\`, a process of its own with \`--expose-gc\`): a generated configuration (\`simulators/nsx/v/large-firewall.ts\`: layer-3 rules with IP sets, addresses, port groups and services on both sides, notes with escaped characters, an applied-to list on every fifth) as the simulator writes it; the median of 5 rounds of each phase: wall ms, and in brackets CPU ms of the measuring thread (process.threadCpuUsage), what the phase costs whatever else runs. fast-xml-parser, which the gateway used before, measured beside it on the same document: the former parse was its validate, its parse and a conversion of its output to the tree (not measured here), the former build a conversion back and its build. A firewall edit parses the configuration (rules indexed), splices one rule, builds the body once, and checks the configuration read back (or reads every rule of it when the caller asks for them).`,
      `Edits: the NSX simulator in a process of its own (\`--nsx-firewall-bytes ${firewallBytes}\`), the gateway with a bench-only preload (\`test/bench/loop-delay.ts\`). One client runs \`addApplicationFirewallRule(position: 0)\` one after the other (each a read, the edit, a write of the whole configuration and a second read, through the gateway) for ${plain.seconds} s, after 2 warm-up edits; another sends \`${smallQuery}\` at ${smallRate}/s over 4 connections (autocannon) meanwhile. The gateway as \`npm start\` runs it (\`node ${startFlags().join(' ')} src/main.ts\`). Earlier runs measured it beside \`--heap-growing-percent=20 --max-semi-space-size=4\` too, which bound V8's young generation and start full collections sooner: since the rules are indexed lazily and young collections follow large calls, those flags give the same, at about twice the CPU per operation, so that run is no longer made (docs/design.md, "Large XML without stalls").`,
      "The gateway's event loop, two ways: its delay (perf_hooks monitorEventLoopDelay, 10 ms resolution: how late a timer fired, from any block, but also from any time the operating system gave the core to other processes), and its longest busy stretch (the most CPU time the main thread used between two ticks of a 10 ms timer: the gateway's own work, garbage-collection pauses on the main thread included). The block target is judged on the second; with a load average far above the core count, the first mostly measures waits for a core, and so does the small query's latency.",
      "Peak memory: the gateway's VmHWM over the measured edits (reset by /proc/<pid>/clear_refs at their start), against its resident memory when idle before the first edit. With `--trace-gc`, the heap still live after each full GC is what the gateway actually holds; RSS above it is garbage V8 has not collected yet: at its defaults V8 lets the young generation grow to 128 MB, and a dead buffer's memory (outside the heap) is freed only when its object is collected; the gateway runs a young collection after each call that moved a megabyte (src/http/young-collection.ts).",
      ctx.pinning
        ? 'The gateway is pinned to core 1; the simulators, autocannon and the bench client to core 0 (the simulator takes most of a core to parse each 5 MB write).'
        : 'Nothing is pinned.',
    ],
    table: {
      head: ['measure', ...measured.map((m) => `${fmt.mib(m.bodyBytes)} (${m.rules} rules)`)],
      rows: [
        [
          'parse, whole tree (for comparison: the gateway builds none; at once)',
          ...measured.map((m) => p('parse', m)),
        ],
        [
          'parse as the gateway does (the rules indexed, not read; at once)',
          ...measured.map((m) => p('parseLazy', m)),
        ],
        [
          'type every rule off the index (a query of every rule)',
          ...measured.map((m) => p('read', m)),
        ],
        ['edit (new rule spliced in)', ...measured.map((m) => p('edit', m))],
        [
          'build of the edited document as the edit sends it (untouched rules as their bytes)',
          ...measured.map((m) => p('build', m)),
        ],
        [
          'longest step between two pauses, parse / build (CPU ms)',
          ...measured.map(
            (m) => `${fmt.ms(m.longestStepMs.parse)} / ${fmt.ms(m.longestStepMs.build)}`,
          ),
        ],
        ['fast-xml-parser: validate', ...measured.map((m) => p('fxpValidate', m))],
        ['fast-xml-parser: parse (preserveOrder)', ...measured.map((m) => p('fxpParse', m))],
        ['fast-xml-parser: build', ...measured.map((m) => p('fxpBuild', m))],
        [
          'heap held by the parsed document: whole tree / lazy (an edit) / fast-xml-parser',
          ...measured.map(
            (m) =>
              `${m.heldMB.tree.toFixed(1)} / ${m.heldMB.lazy.toFixed(1)} / ${m.heldMB.fastXmlParser.toFixed(1)} MB`,
          ),
        ],
        [`**edits on ${fmt.mib(plain.bodyBytes)}, gateway run as**`, '`npm start`', ''],
        ...plainRows.map((row) => [...row, '']),
      ],
    },
    checks: [
      {
        what: `firewall edits on a ${fmt.mib(plain.bodyBytes)} configuration complete`,
        measured: `${plain.edits.length} done, ${plain.failures.length} failed; p50 ${fmt.ms(summarize(plain.edits).p50)} ms`,
        target: 'all done, at least 1',
        pass: plain.edits.length > 0 && plain.failures.length === 0,
      },
      {
        what: 'small query latency meanwhile (p99 / max)',
        measured: `${fmt.ms(latencies.p99)} / ${fmt.ms(latencies.max)} ms`,
        target: '< 100 ms',
        pass: latencies.max < 100 && plain.small.mismatches + plain.small.errors === 0,
      },
      {
        what: "longest block of the gateway's event loop meanwhile (main-thread CPU; wall delay beside it)",
        measured: `${fmt.ms(plain.busy)} ms (wall: ${fmt.ms(plain.loopMax)} ms)`,
        target: '< 100 ms',
        pass: plain.busy < 100,
      },
      memoryCheck(plain, 'as `npm start` runs it'),
    ],
  };
}
