import type { Plugin } from 'graphql-yoga';
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

export interface ReadinessReport {
  /** This process can serve: false only while it drains. An upstream down does not change it. */
  ready: boolean;
  /** Every upstream answered its last probe (what `/ready?upstreams=all` requires). */
  allUp: boolean;
  upstreams: Record<string, UpstreamReadiness>;
  /** Present when REDIS_URL is set; "unavailable" does not make the gateway unready. */
  redis?: 'up' | 'unavailable';
}

export interface Readiness {
  /** Set while the process drains for shutdown: /ready answers 503 from then on. */
  draining: boolean;
  check(): Promise<ReadinessReport>;
}

/**
 * How long an answer waits, at most, for a probe round it started or joined
 * once a first round is known: an appliance that hangs instead of refusing
 * never makes /ready slower than this (an orchestrator's probe times out
 * after 1 s by default). The answer then shows the last round's states.
 */
const freshWaitMs = 500;

/** What each upstream answered its last probe round, for `upstream_up` on /metrics. */
const lastProbed = new WeakMap<object, boolean>();

/**
 * Whether `upstream` (an object given to createReadiness) answered its last
 * readiness probe; undefined when it was never probed. Reading it probes nothing.
 */
export function lastProbe(upstream: object): boolean | undefined {
  return lastProbed.get(upstream);
}

/** Resolves when `promise` settles or after `ms`, whichever comes first. */
async function atMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  try {
    await Promise.race([promise, elapsed]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Probes every upstream at most once per `intervalMs` (probes run when /ready
 * is asked, concurrent asks share one round), so /ready reflects an upstream
 * going down or coming back within that interval. The first answer waits for
 * the first round (the process is starting); later ones wait at most
 * `freshWaitMs` for a new round and otherwise show the last one. An upstream
 * down is shown, never a reason to be unready: one appliance down must not
 * take every replica out of its Service at once (it answers its own fields
 * with UPSTREAM_UNAVAILABLE, the other appliances' with data). `redis` tells
 * whether the store shared by the replicas answers: shown, never a reason to
 * be unready either (each replica then serves with its own state).
 */
export function createReadiness(
  upstreams: readonly Probeable[],
  intervalMs: number,
  redis?: () => boolean,
): Readiness {
  let last: { at: number; up: Map<UpstreamService, boolean> } | undefined;
  let round: Promise<void> | undefined;
  const probeAll = async (): Promise<void> => {
    const signal = AbortSignal.timeout(5000);
    const results = await Promise.all(
      upstreams.map(async (u) => [u.service, await u.probe(signal).catch(() => false)] as const),
    );
    last = { at: Date.now(), up: new Map(results) };
    for (const u of upstreams) lastProbed.set(u, last.up.get(u.service) === true);
  };
  const refresh = async (): Promise<void> => {
    // While draining the answer is 503 whatever the upstreams say: no probe is awaited.
    if (readiness.draining) return;
    if (last !== undefined && Date.now() - last.at < intervalMs) return;
    round ??= probeAll().finally(() => {
      round = undefined;
    });
    if (last === undefined) await round;
    else await atMost(round, freshWaitMs);
  };
  const readiness: Readiness = {
    draining: false,
    async check() {
      await refresh();
      const checkedAt = last === undefined ? null : new Date(last.at).toISOString();
      const entries = upstreams.map((u): [string, UpstreamReadiness] => [
        u.service,
        { state: last?.up.get(u.service) === true ? 'up' : 'down', ...u.health, checkedAt },
      ]);
      const report: ReadinessReport = {
        ready: !readiness.draining,
        allUp: entries.every(([, r]) => r.state === 'up'),
        upstreams: Object.fromEntries(entries),
      };
      if (redis !== undefined) report.redis = redis() ? 'up' : 'unavailable';
      return report;
    },
  };
  return readiness;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}

/**
 * `/ready`: 200 while this process can serve, 503 while it drains, whatever
 * the upstreams' states; `/ready?upstreams=all`: 503 also while any upstream
 * is down. Either way the body names each upstream with its state.
 */
export function readinessEndpoint(readiness: Readiness, path = '/ready'): Plugin {
  const answer = async (search: URLSearchParams): Promise<Response> => {
    const wanted = search.getAll('upstreams');
    if (wanted.some((value) => value !== 'all')) {
      return json(400, { error: 'upstreams: the only value understood is "all"' });
    }
    const strict = wanted.length > 0;
    const { ready, allUp, upstreams, redis } = await readiness.check();
    const status = !ready ? 'draining' : strict && !allUp ? 'not ready' : 'ready';
    return json(status === 'ready' ? 200 : 503, {
      status,
      upstreams,
      ...(redis === undefined ? {} : { redis }),
    });
  };
  return {
    onRequest(payload) {
      // Every other request passes on synchronously (no promise per GraphQL request).
      if (payload.url.pathname !== path) return;
      return answer(payload.url.searchParams).then((response) => payload.endResponse(response));
    },
  };
}
