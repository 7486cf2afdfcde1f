import { startBenchStack, totalOf, upstreamCallsSeen, type BenchStack } from '../bench-stack.ts';
import type { BenchContext } from '../bench-context.ts';
import { expectData, gql } from '../graphql-client.ts';
import type { Section } from '../report.ts';

const catalogQuery = '{ catalogItems(first: 100) { nodes { name provider { name } } } }';
const workflowQuery =
  '{ workflows(first: 50) { nodes { id name inputParameters { name type } outputParameters { name type } } } }';

interface Measured {
  perOperation: number;
  byRoute: string;
  gatewayPerOperation: number;
}

/** Upstream calls per operation for two queries that would be N+1 without batching. */
export async function batching(ctx: BenchContext): Promise<Section> {
  const stack = await startBenchStack({
    simulators: { catalogItems: 120 },
    env: { PROVIDER_CACHE_TTL_MS: '0', WORKFLOW_DETAIL_CACHE_TTL_MS: '0' },
    nodeFlags: ctx.gatewayFlags,
  });
  try {
    const n = ctx.options.samples;
    ctx.log('batching: catalog items with their providers');
    const catalog = await measure(stack, catalogQuery, n, (data) => {
      const nodes = (
        data['catalogItems'] as { nodes: Array<{ provider: { name: string } | null }> }
      ).nodes;
      if (nodes.length !== 100 || nodes.some((node) => node.provider === null)) {
        throw new Error('catalogItems(first: 100) did not answer 100 items with their providers');
      }
    });
    ctx.log('batching: 50 workflows with their parameters');
    const workflows = await measure(stack, workflowQuery, n, (data) => {
      const nodes = (data['workflows'] as { nodes: Array<{ inputParameters: unknown[] | null }> })
        .nodes;
      if (nodes.length !== 50 || nodes.some((node) => node.inputParameters === null)) {
        throw new Error('workflows(first: 50) did not answer 50 workflows with their parameters');
      }
    });
    return {
      title: 'Batching',
      method: [
        `Each query is sent ${n} times, one after the other, after one warm-up (which also obtains the vRA token); the simulators count what they receive. The gateway's own count (\`upstream_request_duration_seconds_count\` on /metrics) is shown beside it.`,
        'The provider-list and workflow-detail caches are off here (`PROVIDER_CACHE_TTL_MS=0`, `WORKFLOW_DETAIL_CACHE_TTL_MS=0`), so that the figures show batching within one request, not caching across requests (see Caching).',
        '`catalogItems(first: 100)`: one catalog item page and one provider list read, whatever the number of items. 50 workflows with their parameters: one page, then one detail read per workflow (vRO has no batch read of workflow details), each made once although two parameter lists are selected.',
        '120 catalog items are served (`--vra-catalog-items 120`: the 33 seeded ones repeated under new ids).',
      ],
      table: {
        head: [
          'query',
          'upstream calls per operation',
          'by route (per operation)',
          'gateway metrics',
        ],
        rows: [
          [
            '`catalogItems(first: 100) { nodes { provider { name } } }`',
            String(catalog.perOperation),
            catalog.byRoute,
            String(catalog.gatewayPerOperation),
          ],
          [
            '`workflows(first: 50)` with input and output parameters',
            String(workflows.perOperation),
            workflows.byRoute,
            String(workflows.gatewayPerOperation),
          ],
        ],
      },
      checks: [
        {
          what: 'upstream calls per `catalogItems(first: 100) { nodes { provider { name } } }`',
          measured: String(catalog.perOperation),
          target: '2',
          pass: catalog.perOperation <= 2,
        },
        {
          what: 'upstream calls per query of 50 workflows with their parameters',
          measured: String(workflows.perOperation),
          target: '≤ 51 (1 page + 1 detail each)',
          pass: workflows.perOperation <= 51,
        },
      ],
    };
  } finally {
    await stack.close();
  }
}

async function measure(
  stack: BenchStack,
  query: string,
  n: number,
  check: (data: Record<string, unknown>) => void,
): Promise<Measured> {
  check(expectData(await gql(stack.gatewayOrigin, query), query));
  await stack.resetCounts();
  const before = await upstreamCallsSeen(stack.gatewayOrigin);
  for (let i = 0; i < n; i++) check(expectData(await gql(stack.gatewayOrigin, query), query));
  const after = await upstreamCallsSeen(stack.gatewayOrigin);
  const counts = await stack.counts();
  const routes = new Map<string, number>();
  for (const service of Object.values(counts)) {
    for (const [route, count] of Object.entries(service.byRoute)) {
      const template = route.replace(/\/workflows\/[^/]+\//, '/workflows/{id}/');
      routes.set(template, (routes.get(template) ?? 0) + count);
    }
  }
  const byRoute = [...routes].map(([route, count]) => `${route}: ${round(count / n)}`).join('; ');
  return {
    perOperation: round(totalOf(counts) / n),
    byRoute,
    gatewayPerOperation: round((after - before) / n),
  };
}

const round = (value: number): number => Math.round(value * 100) / 100;
