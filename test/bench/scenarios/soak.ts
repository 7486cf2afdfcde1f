import { startBenchStack } from '../bench-stack.ts';
import { watchFullGcs } from '../gc-trace.ts';
import { fmt, type BenchContext } from '../bench-context.ts';
import { runLoad } from '../load.ts';
import type { LoadResult, LoadSpec } from '../load-spec.ts';
import { residentBytes } from '../processes.ts';
import type { Section } from '../report.ts';

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

/** Minutes of mixed operations with 5% upstream faults: every answer a contract answer, no leak. */
export async function soak(ctx: BenchContext): Promise<Section> {
  const { options } = ctx;
  const stack = await startBenchStack({
    simulators: { faultProbability },
    nodeFlags: [...ctx.gatewayFlags, '--trace-gc'],
  });
  const fullGcs = watchFullGcs(stack.gateway.child.stdout);
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
    ctx.log(`soak: warm-up ${options.soakWarmupSeconds} s`);
    const warmup = await runLoad(spec(options.soakWarmupSeconds));
    const baseline = residentBytes(stack.gateway.pid);
    const gcsBefore = fullGcs.length;
    const samples: number[] = [baseline];
    const sampler = setInterval(() => samples.push(residentBytes(stack.gateway.pid)), 5000);
    ctx.log(`soak: ${options.soakSeconds} s`);
    let result: LoadResult;
    try {
      result = await runLoad(spec(options.soakSeconds), { cpuOf: stack.gateway.pid });
    } finally {
      clearInterval(sampler);
    }
    const end = residentBytes(stack.gateway.pid);
    samples.push(end);
    const soakGcs = fullGcs.slice(gcsBefore);
    const growth = end / baseline - 1;
    // V8 sizes its heap over the first tens of seconds under load: a short run says little
    const judged = options.soakSeconds >= 60;
    const stillServing = (await fetch(`${stack.gatewayOrigin}/health`)).status === 200;
    const verified = result.verified ?? { clean: 0, withErrors: 0, codes: {}, bad: [] };
    // autocannon counts timeouts among its errors
    const unanswered = result.errors;
    const codes = Object.entries(verified.codes)
      .sort(([, a], [, b]) => b - a)
      .map(([code, count]) => `${code} ${count}`)
      .join(', ');
    return {
      title: 'Soak',
      method: [
        `${options.soakSeconds} s of mixed operations at ${connections} connections, each cycling through ${Object.keys(operations).length} operations (${Object.keys(operations).join(', ')}; \`badInput\` is refused by the gateway itself), after a ${options.soakWarmupSeconds} s warm-up of the same load.`,
        `Every simulator fails ${faultProbability * 100}% of requests (500, 503, connection reset, malformed body, in equal shares; the gateway retries reads on 503 and resets). Every body is checked: data, or errors whose \`extensions.code\` is one of the runtime contract's.`,
        `A fixed rate of ${options.soakRate} operations/s (\`--soak-rate\`), so that memory is compared at equal load: V8 sizes its heap to the allocation rate, and RSS follows the load as much as any leak.`,
        "Resident memory (VmRSS of the gateway's process) is read right after the warm-up and right after the soak, and every 5 s in between. The gateway runs with `--trace-gc`; the heap still live after each full (mark-compact) GC is the leak signal: flat means no leak, whatever RSS does.",
      ],
      table: {
        head: ['measure', 'value'],
        rows: [
          ['operations answered', fmt.rate(result.responses)],
          ['ops/s', fmt.rate(result.rate)],
          ['answers with data and no error', fmt.rate(verified.clean)],
          ['answers with errors', fmt.rate(verified.withErrors)],
          ['error codes seen (count of errors)', codes === '' ? 'none' : codes],
          ['answers outside the contract', String(result.mismatches)],
          [
            'no answer (connection errors, of which timeouts)',
            `${unanswered} (${result.timeouts})`,
          ],
          ['gateway CPU ms/op', fmt.ms(result.cpuMsPerOp ?? Number.NaN)],
          ['p50 / p99 ms', `${fmt.ms(result.latencyMs.p50)} / ${fmt.ms(result.latencyMs.p99)}`],
          ['RSS after warm-up', fmt.mib(baseline)],
          ['RSS at the end', fmt.mib(end)],
          [
            'RSS min / max during the soak',
            `${fmt.mib(Math.min(...samples))} / ${fmt.mib(Math.max(...samples))}`,
          ],
          [
            'V8 heap live after full GCs: first / last / max during the soak',
            soakGcs.length === 0
              ? 'no full GC'
              : `${soakGcs[0] ?? 0} / ${soakGcs.at(-1) ?? 0} / ${Math.max(...soakGcs)} MB (${soakGcs.length} GCs)`,
          ],
          ['warm-up operations (not counted)', fmt.rate(warmup.responses)],
          ...(verified.bad.length === 0
            ? []
            : [['first answer outside the contract', verified.bad[0] ?? '']]),
        ],
      },
      checks: [
        {
          what: 'every request answered with data or a contract error',
          measured: `${fmt.rate(result.responses)} answered, ${result.mismatches} outside the contract, ${unanswered} unanswered`,
          target: '0 outside, 0 unanswered',
          pass: result.mismatches === 0 && unanswered === 0 && result.responses > 0 && stillServing,
        },
        {
          what: 'resident memory growth after warm-up',
          measured: `${fmt.percent(growth)} (${fmt.mib(baseline)} → ${fmt.mib(end)})`,
          target: judged ? '< 10%' : '< 10% (not judged: a soak under 60 s)',
          pass: judged ? growth < 0.1 : null,
        },
      ],
    };
  } finally {
    await stack.close();
  }
}
