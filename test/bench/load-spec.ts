/** One load run, as the bench hands it to the load worker process. */
export interface LoadSpec {
  url: string;
  connections: number;
  durationSeconds: number;
  /** Requests per second over all connections (default: as fast as answers come). */
  rate?: number;
  /** A discarded run first, same settings (JIT, pools, caches), in a run of its own. */
  warmupSeconds: number;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** A sequence of requests each connection cycles through (mixed load); replaces method/body. */
  requests?: Array<{
    method: 'GET' | 'POST';
    path: string;
    headers?: Record<string, string>;
    body?: string;
  }>;
  /**
   * Check every body: `graphql-data`, GraphQL data and no error; `graphql-contract`, data, or
   * errors whose codes are all in the runtime contract.
   */
  verify?: 'graphql-data' | 'graphql-contract';
  /** Check bodies during the warm-up only (keeps the load generator's work equal across rows). */
  verifyWarmupOnly?: boolean;
  /** Answer every latency too (`LoadResult.latencies`), so that runs can be pooled. */
  rawLatencies?: boolean;
}

export interface LoadResult {
  responses: number;
  /** Responses during the warm-up (not counted anywhere else). */
  warmupResponses: number;
  seconds: number;
  /** Responses per second over the measured run. */
  rate: number;
  latencyMs: { p50: number; p90: number; p99: number; mean: number; max: number };
  /** Connection errors, including timeouts (autocannon's `errors`). */
  errors: number;
  timeouts: number;
  non2xx: number;
  /** Bodies that failed `verify` (measured run). */
  mismatches: number;
  /** Bodies that failed `verify` during the warm-up. */
  warmupMismatches: number;
  /** CPU time (user + system) of the process asked about, per measured operation, ms. */
  cpuMsPerOp?: number;
  /** CPU time of the load generator's own process over the measured run, as a share of one core. */
  loadGenCoreShare?: number;
  /** CPU time of each process asked about (`busyOf`) over the measured run, as a share of one core. */
  coreShares?: Record<string, number>;
  /** CPU time (user + system) of the load generator itself over the measured run, ms. */
  generatorCpuMs?: number;
  /** The machine's CPU time the hypervisor stole during the measured run (0..1), where /proc/stat tells. */
  stealShare?: number;
  /** Every response's latency, ms, when the spec asked for them. */
  latencies?: number[];
  /** With `verify`: answers with data and no error, answers by error code, and a few bad bodies. */
  verified?: { clean: number; withErrors: number; codes: Record<string, number>; bad: string[] };
}
