import { countOf, issueVraToken, startBenchStack, type BenchStack } from '../bench-stack.ts';
import type { BenchContext } from '../bench-context.ts';
import { expectData, gql } from '../graphql-client.ts';
import { sleep } from '../processes.ts';
import type { Check, Section } from '../report.ts';

const ttlMs = 3000;
const providerList = /^GET \/catalog-service\/api\/providers$/;
const names = [
  'iaas-service',
  'Blueprint Service',
  'Advanced Designer Service',
  'Software Service',
];

const workflowsWithInputs = '{ workflows(first: 50) { nodes { inputParameters { name } } } }';
const vroCall = /^GET \/vco\/api\//;

/**
 * The provider list is cached across requests for PROVIDER_CACHE_TTL_MS, per
 * credential; workflow details per credential and version (WORKFLOW_DETAIL_CACHE_TTL_MS, default).
 */
export async function caching(ctx: BenchContext): Promise<Section> {
  const stack = await startBenchStack({
    env: { PROVIDER_CACHE_TTL_MS: String(ttlMs) },
    nodeFlags: ctx.gatewayFlags,
  });
  try {
    const n = ctx.options.samples;
    ctx.log('caching: providerByName');
    const userToken = await issueVraToken(stack.upstreams);
    const asUser = { 'x-vra-authorization': `Bearer ${userToken}` };
    // the service account's token, so that its call is not counted below
    expectData(
      await gql(stack.gatewayOrigin, '{ catalogItems(first: 1) { nodes { id } } }'),
      'token',
    );

    const started = Date.now();
    const service = await providerCalls(stack, n, {});
    const user = await providerCalls(stack, n, asUser);
    const within = Date.now() - started;
    // the first two steps only prove the cache if they ran within one TTL
    const inTime = within < ttlMs;
    await sleep(Math.max(0, ttlMs + 500 - (Date.now() - started)));
    const expired = await providerCalls(stack, 1, {});

    ctx.log('caching: workflow details by version');
    const detailsFirst = await workflowCalls(stack);
    const detailsRepeated: number[] = [];
    for (let i = 0; i < n; i++) detailsRepeated.push(await workflowCalls(stack));
    const detailsMost = Math.max(...detailsRepeated);

    const checks: Check[] = [
      {
        what: `provider-list reads for ${n} \`providerByName\` (service account) within the TTL`,
        measured: String(service),
        target: '1 (the first fills the cache)',
        pass: inTime ? service === 1 : null,
      },
      {
        what: `provider-list reads for ${n} \`providerByName\` with a user's own vRA token`,
        measured: String(user),
        target: '1 (a cache entry of its own)',
        pass: inTime ? user === 1 : null,
      },
      {
        what: 'provider-list reads for 1 `providerByName` once the TTL has passed',
        measured: String(expired),
        target: '1',
        pass: expired === 1,
      },
      {
        what: `vRO calls for \`${workflowsWithInputs}\`, first run / each of ${n} repeats (most)`,
        measured: `${detailsFirst} / ${detailsMost}`,
        target: '51 / 1 (the list; each detail kept for the version it shows)',
        pass: detailsFirst === 51 && detailsMost === 1,
      },
    ];
    return {
      title: 'Caching',
      method: [
        `Gateway with \`PROVIDER_CACHE_TTL_MS=${ttlMs}\`. \`providerByName\` over ${names.length} provider names in turn, ${n} times with the service account, then ${n} times with \`X-Vra-Authorization: Bearer <a user's token>\` (obtained from the vRA simulator), all within ${within} ms; then, once the TTL has passed, once more. The vRA simulator counts \`GET /catalog-service/api/providers\`.`,
        "Every answer is checked to be the named provider. The per-credential key is what keeps one user's provider list from serving another.",
        `Workflow details (default \`WORKFLOW_DETAIL_CACHE_TTL_MS\`): \`${workflowsWithInputs}\` once, then ${n} times more; the vRO simulator counts every call. The list tells each workflow's version; a detail kept for that version (per credential) serves without a call.`,
      ],
      table: {
        head: ['step', 'operations', 'provider-list reads'],
        rows: [
          ['service account, within the TTL', String(n), String(service)],
          ["user's token, within the TTL", String(n), String(user)],
          ['service account, after the TTL', '1', String(expired)],
          ['50 workflows with their inputs, first run: vRO calls', '1', String(detailsFirst)],
          [
            '50 workflows with their inputs, repeated: vRO calls (most of one)',
            String(n),
            String(detailsMost),
          ],
        ],
      },
      checks,
    };
  } finally {
    await stack.close();
  }
}

async function providerCalls(
  stack: BenchStack,
  n: number,
  headers: Record<string, string>,
): Promise<number> {
  await stack.resetCounts();
  for (let i = 0; i < n; i++) {
    const name = names[i % names.length] ?? 'iaas-service';
    const data = expectData(
      await gql(stack.gatewayOrigin, `{ providerByName(name: "${name}") { id name } }`, headers),
      'providerByName',
    );
    const provider = data['providerByName'] as { name: string } | null;
    if (provider?.name !== name)
      throw new Error(`providerByName("${name}") answered ${JSON.stringify(provider)}`);
  }
  return countOf(await stack.counts(), providerList);
}

/** vRO calls for one run of the 50-workflow query, its answer checked. */
async function workflowCalls(stack: BenchStack): Promise<number> {
  await stack.resetCounts();
  const data = expectData(await gql(stack.gatewayOrigin, workflowsWithInputs), 'workflows');
  const nodes = (data['workflows'] as { nodes: Array<{ inputParameters: unknown[] | null }> })
    .nodes;
  if (nodes.length !== 50 || nodes.some((node) => node.inputParameters === null)) {
    throw new Error('workflows(first: 50) did not answer 50 workflows with their inputs');
  }
  return countOf(await stack.counts(), vroCall);
}
