/**
 * The upstream-call limit holds as the work runs, not only as estimated: a
 * list the estimate counts as 50 items can hold 3,000 on the appliance. Calls
 * past MAX_UPSTREAM_CALLS_PER_OPERATION are not made; the fields they would
 * have served fail alone with the estimate refusal's code, their siblings
 * keep their data. Against a fake NSX-v manager with 3,000 edges.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { GatewayConfig } from '../../src/gateway-config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createGateway, type Gateway } from '../../src/server.ts';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startHostileUpstreams, type HostileUpstreams } from '../helpers/hostile-upstream.ts';
import { memoryAuditLog } from '../helpers/stack.ts';

const edgeCount = 3000;
const limit = 100;
/** Estimated at 51 calls (the edge list, and 50 edges' virtual servers): under the limit, so it runs. */
const query = '{ edges { id name virtualServers { id name } } }';

const summary = (i: number): string =>
  `<edgeSummary><objectId>edge-${i}</objectId><id>edge-${i}</id><name>Edge-${i}</name><state>deployed</state><edgeType>gatewayServices</edgeType><datacenterName>Datacenter Site A</datacenterName><edgeStatus>GREEN</edgeStatus></edgeSummary>`;

/** `GET …/edges?startIndex=&pageSize=`: one page of the 3,000 edges. */
function edgePage(request: RecordedRequest): string {
  const start = Number(request.query.get('startIndex') ?? 0);
  const size = Number(request.query.get('pageSize') ?? 256);
  const ids = Array.from({ length: Math.max(0, Math.min(size, edgeCount - start)) }, (_, k) => k);
  return `<pagedEdgeList><edgePage><pagingInfo><pageSize>${size}</pageSize><startIndex>${start}</startIndex><totalCount>${edgeCount}</totalCount></pagingInfo>${ids.map((k) => summary(start + k)).join('')}</edgePage></pagedEdgeList>`;
}

interface Answer {
  data?: { edges: Array<{ id: string; name: string; virtualServers: unknown[] | null }> } | null;
  errors?: Array<{
    message: string;
    path?: Array<string | number>;
    extensions?: { code?: unknown };
  }>;
}

let hostile: HostileUpstreams;
let gateway: Gateway;

beforeAll(async () => {
  hostile = await startHostileUpstreams(20261128);
  hostile.override('nsx', (request) =>
    request.method === 'GET' && /\/edges$/.test(request.path)
      ? { status: 200, headers: { 'content-type': 'application/xml' }, body: edgePage(request) }
      : undefined,
  );
  const config = loadConfig({
    ...hostile.env,
    NSX_EDGE_API_VERSION: '4.0',
    MAX_UPSTREAM_CALLS_PER_OPERATION: String(limit),
    UPSTREAM_RETRIES: '0',
  });
  const at = (upstream: { url: URL | undefined }): URL => {
    if (upstream.url === undefined) throw new Error('the fakes give every upstream an address');
    return upstream.url;
  };
  const resolved: GatewayConfig = {
    ...config,
    vro: { ...config.vro, url: at(config.vro) },
    vra: { ...config.vra, url: at(config.vra) },
    nsx: { ...config.nsx, url: at(config.nsx) },
  };
  gateway = createGateway(resolved, {
    logger: createLogger('silent'),
    audit: memoryAuditLog([]),
  });
});
afterAll(async () => {
  await gateway.close();
  await hostile.close();
});

async function ask(method: 'GET' | 'POST', requestId: string): Promise<Answer> {
  const headers = {
    accept: 'application/json',
    'x-graphql-csrf': '1',
    'x-request-id': requestId,
  };
  const response = await gateway.yoga.fetch(
    method === 'GET'
      ? new Request(`http://127.0.0.1/graphql?query=${encodeURIComponent(query)}`, { headers })
      : new Request('http://127.0.0.1/graphql', {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        }),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as Answer;
}

/** The calls the fake NSX manager received for one GraphQL request. */
const receivedFor = (requestId: string): RecordedRequest[] =>
  hostile.nsx.requests.filter((r) => r.headers['x-request-id'] === requestId);

function expectCutAtTheLimit(answer: Answer, requestId: string): void {
  const received = receivedFor(requestId);
  // 3 pages of edges (1,024 each) and 97 edges' virtual servers: the limit, not 3,003
  expect(received).toHaveLength(limit);
  expect(received.filter((r) => r.path.endsWith('/virtualservers'))).toHaveLength(limit - 3);
  const edges = answer.data?.edges ?? [];
  expect(edges).toHaveLength(edgeCount);
  // every edge keeps its own data; only the fields past the limit are null
  expect(edges.every((edge, i) => edge.id === `edge-${i}` && edge.name === `Edge-${i}`)).toBe(true);
  const served = edges.filter((edge) => edge.virtualServers !== null);
  expect(served).toHaveLength(limit - 3);
  for (const edge of served) expect(edge.virtualServers).toHaveLength(1);
  const errors = answer.errors ?? [];
  expect(errors).toHaveLength(edgeCount - (limit - 3));
  expect(new Set(errors.map((e) => e.extensions?.code))).toEqual(
    new Set(['GRAPHQL_VALIDATION_FAILED']),
  );
  expect(errors[0]?.message).toMatch(/100 upstream calls .*MAX_UPSTREAM_CALLS_PER_OPERATION/);
  const refusedIndexes = new Set(errors.map((e) => e.path?.[1]));
  for (const [i, edge] of edges.entries()) {
    expect(refusedIndexes.has(i)).toBe(edge.virtualServers === null);
  }
  expect(errors.every((e) => e.path?.[0] === 'edges' && e.path[2] === 'virtualServers')).toBe(true);
}

describe('the upstream-call limit as the work runs', () => {
  it('stops 3,000 edges’ virtual-server reads at the limit: the fake receives 100 calls, the rest of the fields fail with the code, their siblings keep their data', async () => {
    const answer = await ask('POST', 'enforced-post');
    expectCutAtTheLimit(answer, 'enforced-post');
  });

  it('holds over GET and for each of two clients in parallel, each with its own count', async () => {
    const [a, b] = await Promise.all([ask('GET', 'enforced-get'), ask('POST', 'enforced-other')]);
    expectCutAtTheLimit(a, 'enforced-get');
    expectCutAtTheLimit(b, 'enforced-other');
  });
});
