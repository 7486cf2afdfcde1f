import { startBenchStack } from '../bench-stack.ts';
import { fmt, type BenchContext } from '../bench-context.ts';
import { expectData, gql } from '../graphql-client.ts';
import type { Section } from '../report.ts';
import { summarize } from '../stats.ts';

const latencyMs = 100;
const query =
  '{ workflows(first: 5) { nodes { id name } } catalogItems(first: 5) { nodes { id name } } ipSets { id name } }';

/** One operation over all three upstreams, each answering after 100 ms: the calls must overlap. */
export async function fanOut(ctx: BenchContext): Promise<Section> {
  const stack = await startBenchStack({ simulators: { latencyMs }, nodeFlags: ctx.gatewayFlags });
  try {
    const n = ctx.options.samples;
    ctx.log(`fan-out: ${n} operations`);
    for (let i = 0; i < 3; i++) expectData(await gql(stack.gatewayOrigin, query), 'fan-out');
    await stack.resetCounts();
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const answer = await gql(stack.gatewayOrigin, query);
      expectData(answer, 'fan-out');
      times.push(answer.ms);
    }
    const counts = await stack.counts();
    const perService = ['vro', 'vra', 'nsx'].map(
      (service) => `${service} ${(counts[service]?.total ?? 0) / n}`,
    );
    const everyUpstream = ['vro', 'vra', 'nsx'].every(
      (service) => (counts[service]?.total ?? 0) >= n,
    );
    const stats = summarize(times);
    return {
      title: 'Fan-out',
      method: [
        `\`${query}\`: one call to each upstream, every simulator answering after ${latencyMs} ms. Sent ${n} times one after the other (after 3 warm-up operations, which also obtain the vRA token); wall time as the client sees it.`,
        `Run in sequence, the three calls would take ${3 * latencyMs} ms; run together, ${latencyMs} ms plus the gateway's own time.`,
      ],
      table: {
        head: ['operations', 'p50 ms', 'p90 ms', 'max ms', 'upstream calls per operation'],
        rows: [
          [
            String(n),
            fmt.ms(stats.p50),
            fmt.ms(stats.p90),
            fmt.ms(stats.max),
            perService.join(', '),
          ],
        ],
      },
      checks: [
        {
          what: 'median wall time, three upstreams at 100 ms each',
          measured: `${fmt.ms(stats.p50)} ms`,
          target: '≤ 120 ms',
          pass: stats.p50 <= 120 && everyUpstream,
        },
      ],
    };
  } finally {
    await stack.close();
  }
}
