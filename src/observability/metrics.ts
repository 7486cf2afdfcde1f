import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { UpstreamService } from '../errors.ts';
import type { UpstreamCallEvent, UpstreamHealth } from '../http/upstream-http.ts';
import { lastProbe } from '../plugins/readiness.ts';
import { OperationNames } from './operation-names.ts';

const circuitValue = { closed: 0, 'half-open': 1, open: 2 } as const;

export interface CacheStats {
  name: string;
  entries(): number;
}

/** The gateway's Prometheus metrics, in a registry of its own (one per gateway instance). */
export class Metrics {
  readonly registry = new Registry();
  readonly #operations: Histogram<'operation_type' | 'operation_name' | 'outcome'>;
  readonly #upstreamCalls: Histogram<'service' | 'method' | 'route' | 'status' | 'outcome'>;
  readonly #cacheLookups: Counter<'cache' | 'result'>;
  readonly #operationNames = new OperationNames();
  #upstreams: ReadonlyArray<{ service: UpstreamService; health: UpstreamHealth }> = [];
  #caches: readonly CacheStats[] = [];

  constructor() {
    const upstreams = (): ReadonlyArray<{ service: UpstreamService; health: UpstreamHealth }> =>
      this.#upstreams;
    const caches = (): readonly CacheStats[] => this.#caches;
    collectDefaultMetrics({ register: this.registry });
    this.#operations = new Histogram({
      name: 'graphql_operation_duration_seconds',
      help: 'Duration of GraphQL operations.',
      labelNames: ['operation_type', 'operation_name', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.#upstreamCalls = new Histogram({
      name: 'upstream_request_duration_seconds',
      help: 'Duration of upstream HTTP calls, by service, method, route template and status.',
      labelNames: ['service', 'method', 'route', 'status', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.#cacheLookups = new Counter({
      name: 'gateway_cache_lookups_total',
      help: 'Lookups in the gateway caches, by result (hit or miss).',
      labelNames: ['cache', 'result'],
      registers: [this.registry],
    });
    new Gauge({
      name: 'upstream_circuit_state',
      help: 'Circuit breaker state per upstream: 0 closed, 1 half-open, 2 open.',
      labelNames: ['service'],
      registers: [this.registry],
      collect() {
        for (const u of upstreams())
          this.set({ service: u.service }, circuitValue[u.health.circuit]);
      },
    });
    new Gauge({
      name: 'upstream_up',
      help: 'Whether each upstream answered its last readiness probe: 1 up, 0 down (probed when /ready is asked, at most every READY_PROBE_INTERVAL_MS).',
      labelNames: ['service'],
      registers: [this.registry],
      collect() {
        for (const u of upstreams()) {
          // A scrape probes nothing: an upstream never probed yet has no sample.
          const up = lastProbe(u);
          if (up !== undefined) this.set({ service: u.service }, up ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'upstream_requests_in_flight',
      help: 'Upstream calls running and waiting for a slot.',
      labelNames: ['service', 'state'],
      registers: [this.registry],
      collect() {
        for (const u of upstreams()) {
          this.set({ service: u.service, state: 'running' }, u.health.running);
          this.set({ service: u.service, state: 'queued' }, u.health.queued);
        }
      },
    });
    new Gauge({
      name: 'upstream_concurrency_limit',
      help: 'Upstream calls that may be in flight now (the adaptive limit, or the fixed cap).',
      labelNames: ['service'],
      registers: [this.registry],
      collect() {
        for (const u of upstreams()) this.set({ service: u.service }, u.health.limit);
      },
    });
    new Gauge({
      name: 'gateway_cache_entries',
      help: 'Entries held by each gateway cache.',
      labelNames: ['cache'],
      registers: [this.registry],
      collect() {
        for (const cache of caches()) this.set({ cache: cache.name }, cache.entries());
      },
    });
  }

  /** Reports the state of these upstreams and caches at every scrape. */
  track(
    upstreams: ReadonlyArray<{ service: UpstreamService; health: UpstreamHealth }>,
    caches: readonly CacheStats[] = [],
  ): void {
    this.#upstreams = upstreams;
    this.#caches = caches;
  }

  /** `name` becomes a label value only among the first few hundred names (see OperationNames). */
  observeOperation(
    type: string,
    name: string,
    outcome: 'ok' | 'error' | 'client-gone',
    seconds: number,
  ): void {
    const label = this.#operationNames.label(type, name);
    this.#operations.observe({ operation_type: type, operation_name: label, outcome }, seconds);
  }

  observeUpstreamCall(event: UpstreamCallEvent): void {
    this.#upstreamCalls.observe(
      {
        service: event.service,
        method: event.method,
        route: event.route,
        status: event.status === null ? 'none' : String(event.status),
        outcome: event.outcome,
      },
      event.durationMs / 1000,
    );
  }

  /** Reports `gateway_redis_up` (1 while the shared store answers) at every scrape; only when REDIS_URL is set. */
  trackRedis(available: () => boolean): void {
    new Gauge({
      name: 'gateway_redis_up',
      help: 'Whether Redis (REDIS_URL) answers: 1 caches and pollers are shared with the other replicas, 0 each replica uses its own.',
      registers: [this.registry],
      collect() {
        this.set(available() ? 1 : 0);
      },
    });
  }

  countCacheLookup(cache: string, hit: boolean): void {
    this.#cacheLookups.inc({ cache, result: hit ? 'hit' : 'miss' });
  }
}
