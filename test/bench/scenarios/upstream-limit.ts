import { startBenchStack, type BenchStack } from '../bench-stack.ts';
import { fmt, type BenchContext } from '../bench-context.ts';
import { expectData, gql } from '../graphql-client.ts';
import { graphqlPost, runLoad } from '../load.ts';
import type { LoadResult, LoadSpec } from '../load-spec.ts';
import { pin } from '../processes.ts';
import type { Section } from '../report.ts';

const latencyMs = 50;
const query = '{ workflows(first: 1) { nodes { id name } } }';
const restPath = '/workflows?maxResult=1&startIndex=0';

interface Row {
  path: 'gateway' | 'straight';
  connections: number;
  ideal: number;
  result: LoadResult;
}

/** Upstreams answering after 50 ms: the gateway should get close to connections / 50 ms. */
export async function upstreamLimit(ctx: BenchContext): Promise<Section> {
  const stack = await startBenchStack({
    simulators: { latencyMs },
    nodeFlags: ctx.gatewayFlags,
  });
  try {
    expectData(await gql(stack.gatewayOrigin, query), 'workflows(first: 1)');
    const rows: Row[] = [];
    for (const connections of [50, 100]) {
      for (const path of ['gateway', 'straight'] as const) {
        ctx.log(`upstream limit: ${path}, ${connections} connections`);
        rows.push(await measure(ctx, stack, path, connections));
      }
    }
    return report(ctx, rows);
  } finally {
    await stack.close();
  }
}

/** The gateway row, or the same REST call straight to the simulator (what the rig itself allows). */
async function measure(
  ctx: BenchContext,
  stack: BenchStack,
  path: Row['path'],
  connections: number,
): Promise<Row> {
  const underTest = path === 'gateway' ? stack.gateway : stack.simulators;
  if (ctx.pinning) {
    pin(stack.gateway.pid, path === 'gateway' ? '1' : '0');
    pin(stack.simulators.pid, path === 'gateway' ? '0' : '1');
  }
  const timing = {
    connections,
    durationSeconds: ctx.options.rowSeconds,
    warmupSeconds: ctx.options.warmupSeconds,
  };
  const { url, username, password } = stack.upstreams.vro;
  const spec: LoadSpec =
    path === 'gateway'
      ? { ...graphqlPost(stack.gatewayOrigin, query, timing), verify: 'graphql-data' }
      : {
          ...timing,
          url: url + restPath,
          method: 'GET',
          headers: {
            authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
            accept: 'application/json',
          },
        };
  const result = await runLoad(spec, {
    cores: ctx.pinning ? '0' : undefined,
    cpuOf: underTest.pid,
  });
  return { path, connections, ideal: (connections * 1000) / latencyMs, result };
}

function report(ctx: BenchContext, rows: Row[]): Section {
  const bad = (r: LoadResult): number => r.errors + r.non2xx + r.mismatches + r.warmupMismatches;
  return {
    title: 'The upstream as the limit',
    method: [
      `Every simulator answers after ${latencyMs} ms (a delay fault on every request). \`${query}\` at 50 and 100 connections: one upstream call per operation, so the ideal is connections / ${latencyMs} ms. Every answer is checked (data and no error), so that fast error answers cannot pass for throughput.`,
      `Each gateway row is followed by the REST call it makes (\`GET /vco/api${restPath}\`) sent straight to the simulator by the same tool: what the rig itself (simulator, load generator, loopback) allows, the real ceiling of the gateway row.`,
      'A single gateway process runs JavaScript on one core: it cannot exceed 1000 / (its CPU ms per operation) operations per second, whatever the upstream latency; the CPU column (of the process under test) shows how close that is.',
      ctx.pinning
        ? 'The process under test (gateway, or simulator in the straight rows) is pinned to core 1; autocannon and the rest to core 0.'
        : 'No pinning.',
    ],
    table: {
      head: [
        'path',
        'connections',
        'ideal ops/s',
        'ops/s',
        'of ideal',
        'p50 ms',
        'p99 ms',
        'CPU ms/op',
        'bad answers',
      ],
      rows: rows.map((r) => [
        r.path === 'gateway' ? 'GraphQL, through the gateway' : 'REST, straight to the simulator',
        String(r.connections),
        fmt.rate(r.ideal),
        fmt.rate(r.result.rate),
        fmt.percent(r.result.rate / r.ideal),
        fmt.ms(r.result.latencyMs.p50),
        fmt.ms(r.result.latencyMs.p99),
        fmt.ms(r.result.cpuMsPerOp ?? Number.NaN),
        String(bad(r.result)),
      ]),
    },
    checks: rows
      .filter((r) => r.path === 'gateway')
      .map((r) => {
        const straight = rows.find((s) => s.path === 'straight' && s.connections === r.connections);
        const rig =
          straight === undefined
            ? ''
            : `; straight to the simulator: ${fmt.percent(straight.result.rate / r.ideal)}`;
        return {
          what: `ops/s at ${r.connections} connections`,
          measured: `${fmt.rate(r.result.rate)} (${fmt.percent(r.result.rate / r.ideal)} of ${fmt.rate(r.ideal)}${rig})`,
          target: `≥ 90% of ${fmt.rate(r.ideal)}`,
          pass: r.result.rate >= 0.9 * r.ideal && bad(r.result) === 0,
        };
      }),
  };
}
