import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

/** An OTLP/HTTP collector on loopback: keeps every span it receives (JSON encoding). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status: { code?: number };
}

class Collector {
  readonly spans: OtlpSpan[] = [];
  readonly contentTypes: string[] = [];
  readonly resources: unknown[] = [];
  server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.contentTypes.push(
          `${request.method} ${request.url} ${request.headers['content-type']}`,
        );
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const resourceSpans of body.resourceSpans ?? []) {
          this.resources.push(resourceSpans.resource);
          for (const scope of resourceSpans.scopeSpans ?? []) this.spans.push(...scope.spans);
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const attr = (span: OtlpSpan | undefined, key: string): unknown => {
  const value = span?.attributes.find((a) => a.key === key)?.value;
  if (value === undefined) return undefined;
  if ('intValue' in value) return Number(value['intValue']);
  if ('arrayValue' in value) {
    return (value['arrayValue'] as { values: Array<{ stringValue: string }> }).values.map(
      (v) => v.stringValue,
    );
  }
  return Object.values(value)[0];
};

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

let collector: Collector;
let stack: Stack;

beforeAll(async () => {
  collector = new Collector();
  await collector.start();
  stack = await startStack({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
    vro: { manualClock: true, stepMs: 1000 },
  });
});
afterEach(() => {
  stack.vra.faults.clear();
});
afterAll(async () => {
  await stack.close();
  await collector.close();
});

const explore = `query Explore {
  workflows(first: 2) { nodes { name } }
  providers(first: 2) { nodes { name } }
  ipSets { name }
}`;

const allRequests = (): RecordedRequest[] => [
  ...stack.vro.requests,
  ...stack.vra.requests,
  ...stack.nsx.requests,
];

async function spansOf(requestId: string): Promise<{ operation: OtlpSpan; children: OtlpSpan[] }> {
  await stack.gateway.tracing!.forceFlush();
  const operation = collector.spans.find(
    (s) => s.kind === SERVER && attr(s, 'gateway.request.id') === requestId,
  );
  if (operation === undefined) throw new Error(`no operation span for ${requestId}`);
  const children = collector.spans.filter((s) => s.parentSpanId === operation.spanId);
  return { operation, children };
}

describe('traces over OTLP/HTTP', () => {
  it('exports a span per operation with a child span per upstream call, and sends traceparent upstream', async () => {
    const before = allRequests().length;
    const answer = await stack.gql<any>(explore, undefined, { 'x-request-id': 'trace-explore-1' });
    expect(answer.errors).toBeUndefined();
    const { operation, children } = await spansOf('trace-explore-1');

    expect(collector.contentTypes).toContain('POST /v1/traces application/json');
    expect(JSON.stringify(collector.resources)).toContain('vmw-graphql-gateway');
    expect(operation.name).toBe('Explore');
    expect(attr(operation, 'graphql.operation.type')).toBe('query');
    expect(attr(operation, 'graphql.operation.name')).toBe('Explore');
    expect(operation.parentSpanId ?? '').toBe('');

    const byName = new Map(children.map((s) => [s.name, s]));
    expect([...byName.keys()].sort()).toEqual([
      'GET /api/2.0/services/ipset/scope/{scopeId}',
      'GET /catalog-service/api/providers',
      'GET /workflows',
      'POST /identity/api/tokens',
    ]);
    for (const child of children) {
      expect(child.kind).toBe(CLIENT);
      expect(child.traceId).toBe(operation.traceId);
      expect(attr(child, 'http.response.status_code')).toBe(200);
      expect(attr(child, 'gateway.upstream.outcome')).toBe('ok');
      expect(attr(child, 'gateway.request.id')).toBe('trace-explore-1');
    }
    const workflows = byName.get('GET /workflows');
    expect(attr(workflows, 'peer.service')).toBe('vro');
    expect(attr(workflows, 'http.request.method')).toBe('GET');
    expect(attr(workflows, 'url.template')).toBe('/workflows');
    expect(attr(byName.get('GET /catalog-service/api/providers'), 'peer.service')).toBe('vra');
    expect(attr(byName.get('GET /api/2.0/services/ipset/scope/{scopeId}'), 'peer.service')).toBe(
      'nsx',
    );

    const sent = allRequests().slice(before);
    expect(sent).toHaveLength(4);
    const childIds = new Set(children.map((s) => s.spanId));
    for (const request of sent) {
      const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(
        String(request.headers['traceparent']),
      );
      expect(match?.[1]).toBe(operation.traceId);
      expect(childIds.has(match?.[2] ?? '')).toBe(true);
    }
  });

  it('puts no address, credential, header or id value in any span', async () => {
    await stack.gql<any>(explore, undefined, { 'x-request-id': 'trace-explore-2' });
    await stack.gql<any>(
      'query One($id: ID!) { ipSet(id: $id) { name } workflow(id: "missing-id") { name } }',
      { id: 'ipset-3' },
      { 'x-request-id': 'trace-explore-3' },
    );
    await stack.gateway.tracing!.forceFlush();
    const text = JSON.stringify(collector.spans);
    for (const secret of [
      stack.vro.url.host,
      stack.vra.url.host,
      stack.nsx.url.host,
      stack.vro.password,
      stack.vra.password,
      stack.nsx.password,
      ...stack.vra.issuedTokens(),
      'Basic ',
      'Bearer ',
      'ipset-3',
      'missing-id',
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('marks a failed upstream call and the operation that carries its error', async () => {
    stack.vra.faults.inject({
      path: '/catalog-service/api/providers',
      fault: { kind: 'status', status: 500 },
      times: 1,
    });
    const answer = await stack.gql<any>(
      'query Failing { providers(first: 1) { totalCount } ipSets { id } }',
      undefined,
      { 'x-request-id': 'trace-failing' },
    );
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_ERROR');
    const { operation, children } = await spansOf('trace-failing');
    expect(operation.status.code).toBe(ERROR);
    expect(attr(operation, 'graphql.error.codes')).toEqual(['UPSTREAM_ERROR']);
    const providers = children.find((s) => s.name === 'GET /catalog-service/api/providers');
    expect(providers?.status.code).toBe(ERROR);
    expect(attr(providers, 'http.response.status_code')).toBe(500);
    expect(attr(providers, 'error.type')).toBe('500');
    const ipSets = children.find((s) => s.name.includes('ipset'));
    expect(ipSets?.status.code ?? 0).not.toBe(ERROR);
  });

  it('joins the trace of a client that sends traceparent', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    await stack.gql<any>('query Joined { ipSets { id } }', undefined, {
      'x-request-id': 'trace-joined',
      traceparent: `00-${traceId}-${parent}-01`,
    });
    const { operation, children } = await spansOf('trace-joined');
    expect(operation.traceId).toBe(traceId);
    expect(operation.parentSpanId).toBe(parent);
    expect(children).toHaveLength(1);
    expect(children[0]?.traceId).toBe(traceId);
  });

  it('carries the client’s tracestate to the upstream, beside a traceparent of its own span', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const before = allRequests().length;
    await stack.gql<any>('query State { ipSets { id } }', undefined, {
      'x-request-id': 'trace-state',
      traceparent: `00-${traceId}-b7ad6b7169203331-01`,
      tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
    });
    const { children } = await spansOf('trace-state');
    const sent = allRequests().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers['tracestate']).toBe('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
    expect(sent[0]?.headers['traceparent']).toBe(`00-${traceId}-${children[0]?.spanId}-01`);
  });

  it('starts a trace of its own when the client’s traceparent is malformed', async () => {
    await stack.gql<any>('query Malformed { ipSets { id } }', undefined, {
      'x-request-id': 'trace-malformed',
      traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    });
    const { operation } = await spansOf('trace-malformed');
    expect(operation.traceId).not.toBe('0'.repeat(32));
    expect(operation.parentSpanId ?? '').toBe('');
  });

  it('names an anonymous operation after its type and traces a mutation', async () => {
    await stack.gql<any>('mutation { forceSyncEdge(edgeId: "edge-1") { accepted } }', undefined, {
      'x-request-id': 'trace-anonymous',
    });
    const { operation, children } = await spansOf('trace-anonymous');
    expect(operation.name).toBe('mutation');
    expect(attr(operation, 'graphql.operation.name')).toBeUndefined();
    // The first edge operation of the process asks the manager its edge API version.
    expect(children.map((s) => s.name)).toEqual([
      'GET /api/4.0/edges (edge API version probe)',
      'POST /api/{version}/edges/{edgeId}?action=forcesync',
    ]);
  });

  it('traces a subscription with the upstream calls made for its events', async () => {
    const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
    const run = await stack.gql<any>(
      'mutation($w: ID!) { runWorkflow(workflowId: $w) { execution { id } } }',
      { w: echo },
    );
    const executionId = run.data?.runWorkflow.execution.id as string;
    stack.vro.advance(10_000);
    const response = await stack.fetch('/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'x-request-id': 'trace-subscription',
      },
      body: JSON.stringify({
        query: `subscription Follow($w: ID!, $e: ID!) {
          workflowExecution(workflowId: $w, executionId: $e) { state workflow { name } }
        }`,
        variables: { w: echo, e: executionId },
      }),
    });
    const stream = await response.text();
    expect(stream).toContain('COMPLETED');
    expect(stream).toContain('event: complete');
    const { operation, children } = await spansOf('trace-subscription');
    expect(operation.name).toBe('Follow');
    expect(attr(operation, 'graphql.operation.type')).toBe('subscription');
    expect(children.map((s) => s.name).sort()).toEqual([
      'GET /workflows/{id}/',
      'GET /workflows/{id}/executions/{executionId}/',
    ]);
  });
});

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('has no tracing and sends no traceparent', async () => {
    const plain = await startStack();
    try {
      expect(plain.gateway.tracing).toBeUndefined();
      const answer = await plain.gql<any>(explore);
      expect(answer.errors).toBeUndefined();
      const sent = [...plain.vro.requests, ...plain.vra.requests, ...plain.nsx.requests];
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.filter((r) => r.headers['traceparent'] !== undefined)).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
