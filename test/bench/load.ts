import type { LoadResult, LoadSpec } from './load-spec.ts';
import { collectStdout, cpuSeconds, spawnNode } from './processes.ts';

/**
 * Runs autocannon in a process of its own (pinned to `cores` when given): the
 * warm-up first, in a run of its own, then the measured run. With `cpuOf`,
 * also answers that process's CPU time per operation over the measured run.
 */
export async function runLoad(
  spec: LoadSpec,
  options: { cores?: string | undefined; cpuOf?: number } = {},
): Promise<LoadResult> {
  const warmup =
    spec.warmupSeconds > 0
      ? await runOnce({ ...spec, durationSeconds: spec.warmupSeconds }, options.cores)
      : undefined;
  const cpuBefore = options.cpuOf === undefined ? 0 : cpuSeconds(options.cpuOf);
  const { verify, ...rest } = spec;
  const measured = await runOnce(
    verify === undefined || spec.verifyWarmupOnly === true ? rest : { ...rest, verify },
    options.cores,
  );
  const cpu = options.cpuOf === undefined ? undefined : cpuSeconds(options.cpuOf) - cpuBefore;
  return {
    ...measured,
    warmupResponses: warmup?.responses ?? 0,
    warmupMismatches: warmup?.mismatches ?? 0,
    ...(cpu === undefined ? {} : { cpuMsPerOp: (cpu * 1000) / measured.responses }),
  };
}

async function runOnce(spec: LoadSpec, cores: string | undefined): Promise<LoadResult> {
  const worker = spawnNode('load', ['test/bench/load-worker.ts', JSON.stringify(spec)], {}, cores);
  const { stdout, code } = await collectStdout(worker);
  const line = stdout.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !line.startsWith('{')) {
    throw new Error(`the load worker failed (${code}): ${worker.stderrTail()}`);
  }
  return JSON.parse(line) as LoadResult;
}

/** A GraphQL POST as autocannon sends it. */
export function graphqlPost(
  origin: string,
  query: string,
  options: Omit<LoadSpec, 'url' | 'method' | 'headers' | 'body'>,
  headers: Record<string, string> = {},
): LoadSpec {
  return {
    url: `${origin}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query }),
    ...options,
  };
}
