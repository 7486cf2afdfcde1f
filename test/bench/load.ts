import type { LoadResult, LoadSpec } from './load-spec.ts';
import { cpuTicks, stealShare } from './machine.ts';
import { collectStdout, cpuSeconds, spawnNode } from './processes.ts';
import { summarize } from './stats.ts';

export interface LoadOptions {
  /** Pin the load generator to these cores. */
  cores?: string | undefined;
  /** Also measure this process's CPU time per operation. */
  cpuOf?: number;
  /** Also measure these processes' CPU time, as a share of one core (label → pid): is one saturated? */
  busyOf?: Record<string, number>;
  /** Called right before and right after the measured run (not the warm-up). */
  measuredRun?: { before(): Promise<void>; after(): Promise<void> };
}

/**
 * Runs autocannon in a process of its own (pinned to `cores` when given): the
 * warm-up first, in a run of its own, then the measured run. With `cpuOf`,
 * also answers that process's CPU time per operation over the measured run;
 * always the share of the machine's CPU time the hypervisor stole meanwhile.
 */
export async function runLoad(spec: LoadSpec, options: LoadOptions = {}): Promise<LoadResult> {
  const warmup =
    spec.warmupSeconds > 0
      ? await runOnce({ ...spec, durationSeconds: spec.warmupSeconds }, options.cores)
      : undefined;
  await options.measuredRun?.before();
  const cpuBefore = options.cpuOf === undefined ? 0 : cpuSeconds(options.cpuOf);
  const busyBefore = Object.entries(options.busyOf ?? {}).map(
    ([label, pid]) => [label, pid, cpuSeconds(pid)] as const,
  );
  const ticksBefore = cpuTicks();
  const measured = await runOnce(measuredSpec(spec), options.cores);
  const cpu = options.cpuOf === undefined ? undefined : cpuSeconds(options.cpuOf) - cpuBefore;
  const coreShares = Object.fromEntries(
    busyBefore.map(([label, pid, before]) => [
      label,
      (cpuSeconds(pid) - before) / measured.seconds,
    ]),
  );
  const steal = stealShare(ticksBefore, cpuTicks());
  await options.measuredRun?.after();
  return {
    ...measured,
    warmupResponses: warmup?.responses ?? 0,
    warmupMismatches: warmup?.mismatches ?? 0,
    ...(cpu === undefined ? {} : { cpuMsPerOp: (cpu * 1000) / measured.responses }),
    ...(busyBefore.length === 0 ? {} : { coreShares }),
    ...(steal === undefined ? {} : { stealShare: steal }),
  };
}

/**
 * Several loads measured in turns: each one's warm-up, then `rounds` rounds in
 * which every load runs for its share of `durationSeconds`, one after the
 * other. The loads see the machine in the same state on average (its speed
 * drifts over minutes on a shared host), and each result pools its rounds:
 * latencies, responses, CPU time of `cpuOf`, host steal.
 */
export async function runInterleaved(
  loads: ReadonlyArray<{ spec: LoadSpec; cpuOf: number; busyOf?: Record<string, number> }>,
  rounds: number,
  cores?: string,
): Promise<LoadResult[]> {
  const pooled = loads.map((load) => ({
    load,
    tally: {
      latencies: [] as number[],
      seconds: 0,
      cpu: 0,
      loadGenCpu: 0,
      busy: new Map<string, number>(),
      ticks: { total: 0, steal: 0 },
      errors: 0,
      timeouts: 0,
      non2xx: 0,
      mismatches: 0,
      warmupResponses: 0,
      warmupMismatches: 0,
    },
  }));
  for (const { load, tally: into } of pooled) {
    if (load.spec.warmupSeconds <= 0) continue;
    const warmup = await runOnce({ ...load.spec, durationSeconds: load.spec.warmupSeconds }, cores);
    into.warmupResponses = warmup.responses;
    into.warmupMismatches = warmup.mismatches;
  }
  for (let round = 0; round < rounds; round += 1) {
    for (const { load, tally: into } of pooled) {
      const cpuBefore = cpuSeconds(load.cpuOf);
      const busyBefore = Object.entries(load.busyOf ?? {}).map(
        ([label, pid]) => [label, pid, cpuSeconds(pid)] as const,
      );
      const ticksBefore = cpuTicks();
      const result = await runOnce(
        {
          ...measuredSpec(load.spec),
          durationSeconds: Math.max(1, Math.round(load.spec.durationSeconds / rounds)),
          rawLatencies: true,
        },
        cores,
      );
      into.cpu += cpuSeconds(load.cpuOf) - cpuBefore;
      for (const [label, pid, before] of busyBefore) {
        into.busy.set(label, (into.busy.get(label) ?? 0) + cpuSeconds(pid) - before);
      }
      into.loadGenCpu += (result.loadGenCoreShare ?? 0) * result.seconds;
      const ticksAfter = cpuTicks();
      if (ticksBefore !== undefined && ticksAfter !== undefined) {
        into.ticks.total += ticksAfter.total - ticksBefore.total;
        into.ticks.steal += ticksAfter.steal - ticksBefore.steal;
      }
      for (const latency of result.latencies ?? []) into.latencies.push(latency);
      into.seconds += result.seconds;
      into.errors += result.errors;
      into.timeouts += result.timeouts;
      into.non2xx += result.non2xx;
      into.mismatches += result.mismatches;
    }
  }
  return pooled.map(
    ({ tally: { latencies, seconds, cpu, loadGenCpu, busy, ticks, ...counts } }) => {
      const steal = stealShare({ total: 0, steal: 0 }, ticks);
      return {
        ...counts,
        responses: latencies.length,
        seconds,
        rate: latencies.length / seconds,
        latencyMs: summarize(latencies),
        cpuMsPerOp: (cpu * 1000) / latencies.length,
        loadGenCoreShare: loadGenCpu / seconds,
        coreShares: Object.fromEntries([...busy].map(([label, spent]) => [label, spent / seconds])),
        ...(steal === undefined ? {} : { stealShare: steal }),
      };
    },
  );
}

/** The spec of a measured run: bodies checked unless only the warm-up's are. */
function measuredSpec(spec: LoadSpec): LoadSpec {
  const { verify, ...rest } = spec;
  return verify === undefined || spec.verifyWarmupOnly === true ? rest : { ...rest, verify };
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
