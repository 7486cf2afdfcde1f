/**
 * Runs one autocannon load in this process (so that the bench can pin it to a
 * core of its own) and prints a LoadResult as one JSON line. Latencies are
 * taken from autocannon's per-response timings (sub-millisecond), not from its
 * histogram, which keeps whole milliseconds.
 */
import autocannon from 'autocannon';
import { contractCodes } from '../helpers/contract-codes.ts';
import type { LoadResult, LoadSpec } from './load-spec.ts';
import { summarize } from './stats.ts';

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;

interface Tally {
  clean: number;
  withErrors: number;
  codes: Record<string, number>;
  bad: string[];
}

type GraphqlBody = { data?: unknown; errors?: Array<{ extensions?: { code?: unknown } }> };

/**
 * Checks every body; a body equal to the last one that passed as clean data
 * passes at the cost of a string comparison (repeated identical answers are
 * the norm), so that checking costs the load generator little.
 */
function verifier(mode: NonNullable<LoadSpec['verify']>, tally: Tally): (body: unknown) => boolean {
  let lastClean: string | undefined;
  return (body) => {
    const text = typeof body === 'string' ? body : String(body);
    if (text === lastClean) {
      tally.clean += 1;
      return true;
    }
    const before = tally.clean;
    const ok = check(mode, text, tally);
    if (tally.clean > before) lastClean = text;
    if (!ok && tally.bad.length < 5) tally.bad.push(text.slice(0, 300));
    return ok;
  };
}

function check(mode: NonNullable<LoadSpec['verify']>, text: string, tally: Tally): boolean {
  let answer: GraphqlBody;
  try {
    answer = JSON.parse(text) as GraphqlBody;
  } catch {
    return false;
  }
  const errors = answer.errors ?? [];
  if (errors.length === 0) {
    if (typeof answer.data !== 'object' || answer.data === null) return false;
    tally.clean += 1;
    return true;
  }
  tally.withErrors += 1;
  let ok = mode === 'graphql-contract';
  for (const error of errors) {
    const code = typeof error.extensions?.code === 'string' ? error.extensions.code : 'NO_CODE';
    tally.codes[code] = (tally.codes[code] ?? 0) + 1;
    if (!contractCodes.has(code)) ok = false;
  }
  return ok;
}

interface Phase {
  result: autocannon.Result;
  latencies: number[];
  seconds: number;
  tally: Tally;
}

async function run(seconds: number): Promise<Phase> {
  const latencies: number[] = [];
  const tally: Tally = { clean: 0, withErrors: 0, codes: {}, bad: [] };
  const options: autocannon.Options = {
    url: spec.url,
    connections: spec.connections,
    duration: seconds,
    method: spec.method,
    headers: spec.headers,
    timeout: 30,
    ...(spec.rate === undefined ? {} : { overallRate: spec.rate }),
    ...(spec.body === undefined ? {} : { body: spec.body }),
    ...(spec.requests === undefined ? {} : { requests: spec.requests }),
    ...(spec.verify === undefined ? {} : { verifyBody: verifier(spec.verify, tally) }),
  };
  const started = performance.now();
  let last = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, done: autocannon.Result) => {
      if (error === null || error === undefined) resolve(done);
      else reject(error instanceof Error ? error : new Error('autocannon failed'));
    });
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      latencies.push(responseTime);
      last = performance.now();
    });
  });
  return { result, latencies, seconds: (last - started) / 1000, tally };
}

const cpuBefore = process.cpuUsage();
const measured = await run(spec.durationSeconds);
const cpu = process.cpuUsage(cpuBefore);
const output: LoadResult = {
  responses: measured.latencies.length,
  warmupResponses: 0,
  seconds: measured.seconds,
  rate: measured.latencies.length / measured.seconds,
  latencyMs: summarize(measured.latencies),
  errors: measured.result.errors,
  timeouts: measured.result.timeouts,
  non2xx: measured.result.non2xx,
  mismatches: measured.result.mismatches,
  warmupMismatches: 0,
  loadGenCoreShare: (cpu.user + cpu.system) / 1e6 / measured.seconds,
  generatorCpuMs: (cpu.user + cpu.system) / 1000,
  ...(spec.verify === undefined ? {} : { verified: measured.tally }),
  ...(spec.rawLatencies === true ? { latencies: measured.latencies } : {}),
};
process.stdout.write(`${JSON.stringify(output)}\n`);
