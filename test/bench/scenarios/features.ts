import { startBenchStack, type BenchStack } from '../bench-stack.ts';
import { fmt, type BenchContext } from '../bench-context.ts';
import { expectData, gql } from '../graphql-client.ts';
import { graphqlPost } from '../load.ts';
import {
  featureCost,
  pairedRounds,
  spreadOf,
  spreadText,
  type FeatureCost,
  type PairedRun,
  type PairedTarget,
} from '../paired-rounds.ts';
import { pin, type Spawned } from '../processes.ts';
import type { Check, Section } from '../report.ts';
import type { OptionalFeature } from '../../../src/server.ts';

const query = '{ workflows(first: 20) { nodes { id name description version categoryName } } }';
const connections = 50;
const defaultBuild = 'default';
const withSession = 'default, with a session cookie';

/** The builds started beside the default one: the same code, composed without one feature. */
const without: ReadonlyArray<{ name: string; feature: OptionalFeature }> = [
  { name: 'without the request log', feature: 'request-log' },
  { name: 'without metrics', feature: 'metrics' },
  { name: 'without tracing', feature: 'tracing' },
  { name: 'without the root-field guard', feature: 'root-guard' },
];

/** One row of the table: which target ran with the feature and which without. */
const rows: ReadonlyArray<{ short: string; feature: string; with: string; without: string }> = [
  {
    short: 'request log',
    feature: 'request log (one JSON line per request, `LOG_LEVEL=info`)',
    with: defaultBuild,
    without: 'without the request log',
  },
  {
    short: 'metrics',
    feature: 'metrics (operation, upstream-call and cache-look-up observations; `/metrics` served)',
    with: defaultBuild,
    without: 'without metrics',
  },
  {
    short: 'tracing, off',
    feature: 'tracing, off as shipped (`OTEL_EXPORTER_OTLP_ENDPOINT` unset)',
    with: defaultBuild,
    without: 'without tracing',
  },
  {
    short: 'root-field guard',
    feature: 'root-field guard (scope check of every root field; audit wrapper of mutations)',
    with: defaultBuild,
    without: 'without the root-field guard',
  },
  {
    short: 'session lookup',
    feature: 'session lookup (a live `gateway_session` cookie against no credential)',
    with: withSession,
    without: defaultBuild,
  },
];

/**
 * What each per-request feature costs in CPU per operation: the gateway at
 * its defaults against the same code composed without that feature, all
 * started at once and measured in paired rounds.
 */
export async function features(ctx: BenchContext): Promise<Section> {
  const { quick } = ctx.options;
  const rounds = quick ? 2 : 4;
  const seconds = quick ? 2 : 3;
  const warmupSeconds = 1;
  ctx.log(`features: starting ${without.length + 2} gateways`);
  const starting = await Promise.allSettled([
    startBenchStack({ nodeFlags: ctx.gatewayFlags }),
    // the session's target has a default gateway of its own: every gateway takes one target's load
    startBenchStack({ nodeFlags: ctx.gatewayFlags }),
    ...without.map(({ feature }) =>
      startBenchStack({
        nodeFlags: ctx.gatewayFlags,
        entry: 'test/bench/gateway-without.ts',
        entryArgs: ['--without', feature],
      }),
    ),
  ]);
  const stacks = starting.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    const failed = starting.find((s) => s.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const [base, sessionBase, ...others] = stacks as [BenchStack, BenchStack, ...BenchStack[]];
    const cookie = await signIn(sessionBase);
    const everyone: Spawned[] = stacks.flatMap((s) => [s.gateway, s.simulators]);
    const target = (name: string, stack: BenchStack, headers = {}): PairedTarget => ({
      name,
      pid: stack.gateway.pid,
      spec: (durationSeconds) => ({
        ...graphqlPost(
          stack.gatewayOrigin,
          query,
          { connections, durationSeconds, warmupSeconds: 0 },
          headers,
        ),
        verify: 'graphql-data',
        verifyWarmupOnly: true,
      }),
      busyOf: { simulator: stack.simulators.pid },
      ...(ctx.pinning
        ? {
            before: () => {
              for (const process of everyone) {
                pin(process.pid, process === stack.gateway ? '1' : '0');
              }
            },
          }
        : {}),
    });
    const targets = [
      target(defaultBuild, base),
      target(withSession, sessionBase, { cookie }),
      ...others.map((stack, i) => target(without[i]?.name ?? `build ${i}`, stack)),
    ];
    for (const { name, spec } of targets) {
      const { headers } = spec(1);
      expectData(await gql(new URL(spec(1).url).origin, query, headers), name);
    }
    ctx.log(
      `features: ${targets.length} targets, ${rounds} rounds of ${seconds} s at ${connections} connections`,
    );
    const runs = await pairedRounds(targets, {
      rounds,
      seconds,
      warmupSeconds,
      cores: ctx.pinning ? '0' : undefined,
      onRound: (round) => ctx.log(`features: round ${round + 1} of ${rounds}`),
    });
    return report(runs, { rounds, seconds, warmupSeconds, pinned: ctx.pinning });
  } finally {
    await Promise.all(stacks.map((stack) => stack.close()));
  }
}

/** Signs in with the vRA simulator's account; answers the `Cookie` header that carries the session. */
async function signIn(stack: BenchStack): Promise<string> {
  const { username, password } = stack.upstreams.vra;
  const response = await fetch(`${stack.gatewayOrigin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      query: 'mutation($u: String!, $p: String!) { signIn(username: $u, password: $p) { via } }',
      variables: { u: username, p: password },
    }),
  });
  const body = await response.text();
  const session = response.headers
    .getSetCookie()
    .map((header) => header.split(';')[0] ?? '')
    .find((pair) => pair.startsWith('gateway_session='));
  if (response.status !== 200 || session === undefined) {
    throw new Error(`signIn: ${response.status} ${body.slice(0, 300)}`);
  }
  const viewer = expectData(
    await gql(stack.gatewayOrigin, '{ viewer { via } }', { cookie: session }),
    'viewer',
  );
  if ((viewer['viewer'] as { via?: string } | null)?.via !== 'SESSION') {
    throw new Error(`the session cookie is not taken: ${JSON.stringify(viewer)}`);
  }
  return session;
}

function report(
  runs: ReadonlyMap<string, PairedRun[]>,
  how: { rounds: number; seconds: number; warmupSeconds: number; pinned: boolean },
): Section {
  const cpu = (name: string): number[] => (runs.get(name) ?? []).map((run) => run.cpuMsPerOp);
  const baseMedian = spreadOf(cpu(defaultBuild)).median;
  const costs: Array<[(typeof rows)[number], FeatureCost]> = rows.map((row) => [
    row,
    featureCost(cpu(row.with), cpu(row.without), baseMedian),
  ]);
  const costText = (cost: FeatureCost): string =>
    `${cost.costMs >= 0 ? '+' : ''}${cost.costMs.toFixed(3)} ms (${cost.share >= 0 ? '+' : ''}${fmt.percent(cost.share)})`;
  const checks: Check[] = costs.map(([row, cost]) => ({
    what: `CPU per operation: ${row.short} (with against without; ${baseMedian.toFixed(3)} ms at the defaults)`,
    measured: `${costText(cost)}; higher in ${cost.higher} of ${cost.rounds} rounds`,
    target: 'none: measured',
    pass: null,
  }));
  const rates = [...runs].map(([name, measured]) => {
    const rate = spreadOf(measured.map((run) => run.rate)).median;
    const simulator = spreadOf(measured.map((run) => run.coreShares['simulator'] ?? Number.NaN));
    const loadGen = spreadOf(measured.map((run) => run.loadGenCoreShare));
    return `${name} ${fmt.rate(rate)}/s (load gen ${fmt.percent(loadGen.median)}, simulator ${fmt.percent(simulator.median)})`;
  });
  return {
    title: 'Per-request features',
    method: [
      `\`${query}\` at ${connections} connections against the gateway at its defaults and against the same code composed without one feature (\`test/bench/gateway-without.ts\`: src/serve.ts, as \`npm start\` runs it, with \`createGateway\`'s \`without\` option, src/server.ts); every gateway with simulators of its own, all started at once.`,
      `Paired rounds (\`test/bench/paired-rounds.ts\`, as \`test/bench/cpu-ab.ts\`): a ${how.warmupSeconds} s warm-up per target, then ${how.rounds} rounds in which every target takes the same load for ${how.seconds} s in turn, the order reversed every other round${how.pinned ? ', the gateway under load pinned to core 1 and every other process (autocannon, the simulators, the idle gateways) to core 0' : ''}. CPU ms/op: user + system CPU time of the gateway over the run per operation; median (min-max) of the rounds. Cost: the median with the feature minus the median without, and that as a share of the default build's median. Rounds where with > without: of the rounds, those in which the run with the feature took more CPU per operation than the run without it in the same round (about half, for a feature that costs nothing).`,
      'Without the request log: no line is written; the plugin still names the operation, counts its errors for the metric and sends `X-Request-Id`. Without metrics: no operation, upstream-call or cache-look-up observation and no `/metrics`.',
      'Tracing is off at the defaults: the plugin is then not installed at all and what remains is one optional call per upstream attempt, so the two builds of that row are the same composition in two processes: its "cost" is the noise of this method, and a feature costing less than it costs nothing measurable.',
      'The root-field guard wraps every root field: a query field with the scope check, a mutation field with the audit (a `started` and a `completed` event); this load runs a query, so the row is the scope check. Queries are not audited (src/auth/root-guard.ts wraps mutation fields only): there is no audit of queries to measure.',
      'The session lookup: a second gateway of the default build (so that every gateway takes the load of one target per round), requests carrying the `gateway_session` cookie of a `signIn` (the cookie parsed, its SHA-256 digest, the session found in the process, the caller made from it) against requests to the first default gateway carrying no credential (the anonymous caller the defaults allow on a loopback address). A bearer token needs `GATEWAY_TOKENS`, another configuration: not measured here.',
      `Median ops/s per target: ${rates.join('; ')}.`,
    ],
    table: {
      head: [
        'feature',
        'with, ms/op median (min-max)',
        'without',
        'cost, ms/op (share of the default build)',
        'rounds where with > without',
      ],
      rows: [
        ...costs.map(([row, cost]) => [
          row.feature,
          spreadText(cost.with),
          spreadText(cost.without),
          costText(cost),
          `${cost.higher} of ${cost.rounds}`,
        ]),
        ['audit of queries', 'none: queries are not audited', '', '', ''],
      ],
    },
    checks,
  };
}
