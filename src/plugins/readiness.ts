import type { Plugin } from 'graphql-yoga';
import { servePath } from './serve-path.ts';
import type { UpstreamService } from '../errors.ts';
import type { UpstreamHealth } from '../http/upstream-http.ts';

/** What readiness needs of an upstream: a cheap probe and the seam's health. */
export interface Probeable {
  readonly service: UpstreamService;
  readonly health: UpstreamHealth;
  probe(signal: AbortSignal): Promise<boolean>;
}

export interface UpstreamReadiness {
  state: 'up' | 'down';
  circuit: UpstreamHealth['circuit'];
  running: number;
  queued: number;
  /** Calls that may be in flight now (the adaptive limit, or the fixed cap). */
  limit: number;
  /** When the state was probed; null when it never was (a drain before the first probe). */
  checkedAt: string | null;
}

export interface Readiness {
  /** Set while the process drains for shutdown: /ready answers 503 from then on. */
  draining: boolean;
  check(): Promise<{
    ready: boolean;
    upstreams: Record<string, UpstreamReadiness>;
    /** Present when REDIS_URL is set; "unavailable" does not make the gateway unready. */
    redis?: 'up' | 'unavailable';
  }>;
}

/**
 * Probes every upstream at most once per `intervalMs` (probes run when /ready
 * is asked, concurrent asks share one round), so /ready reflects an upstream
 * going down or coming back within that interval. `redis` tells whether the
 * store shared by the replicas answers: shown, never a reason to be unready
 * (each replica then serves with its own state).
 */
export function createReadiness(
  upstreams: readonly Probeable[],
  intervalMs: number,
  redis?: () => boolean,
): Readiness {
  let last: { at: number; up: Map<UpstreamService, boolean> } | undefined;
  let round: Promise<Map<UpstreamService, boolean>> | undefined;
  const probeAll = async (): Promise<Map<UpstreamService, boolean>> => {
    const signal = AbortSignal.timeout(5000);
    const results = await Promise.all(
      upstreams.map(async (u) => [u.service, await u.probe(signal)] as const),
    );
    return new Map(results);
  };
  const readiness: Readiness = {
    draining: false,
    async check() {
      // While draining the answer is 503 whatever the upstreams say: no probe is awaited.
      const stale = last === undefined || Date.now() - last.at >= intervalMs;
      if (stale && !readiness.draining) {
        round ??= probeAll().finally(() => {
          round = undefined;
        });
        last = { at: Date.now(), up: await round };
      }
      const checkedAt = last === undefined ? null : new Date(last.at).toISOString();
      const entries = upstreams.map((u): [string, UpstreamReadiness] => [
        u.service,
        { state: last?.up.get(u.service) === true ? 'up' : 'down', ...u.health, checkedAt },
      ]);
      const ready = !readiness.draining && entries.every(([, r]) => r.state === 'up');
      const upstreamStates = Object.fromEntries(entries);
      if (redis === undefined) return { ready, upstreams: upstreamStates };
      return { ready, upstreams: upstreamStates, redis: redis() ? 'up' : 'unavailable' };
    },
  };
  return readiness;
}

/** `/ready`: 200 when every upstream answered its last probe, 503 otherwise, with each upstream's state. */
export function readinessEndpoint(readiness: Readiness, path = '/ready'): Plugin {
  return servePath(
    (pathname) => pathname === path,
    async () => {
      const { ready, upstreams, redis } = await readiness.check();
      const status = readiness.draining ? 'draining' : ready ? 'ready' : 'not ready';
      return new Response(
        JSON.stringify({ status, upstreams, ...(redis === undefined ? {} : { redis }) }),
        {
          status: ready ? 200 : 503,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'cache-control': 'no-store',
          },
        },
      );
    },
  );
}
