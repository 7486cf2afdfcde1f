import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseSubscription } from '../helpers/sse.ts';
import { listen, type Stack, startStack, upstreamCalls } from '../helpers/stack.ts';

const tokens = ['first-token-0123456789', 'second-token-abcdefghij'];
const query = '{ workflows(first: 1) { totalCount } }';

let stack: Stack;
let server: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  stack = await startStack({ env: { GATEWAY_TOKENS: tokens.join(' , ') } });
  server = await listen(stack.gateway);
});
afterAll(async () => {
  await server.close();
  await stack.close();
});

function post(headers: Record<string, string>, path = '/graphql', body: unknown = { query }) {
  return stack.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function expectRefused(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="[^"]+"$/);
  const body = (await response.json()) as { data?: unknown; errors: any[] };
  expect(body.data).toBeUndefined();
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
}

describe('client authentication with GATEWAY_TOKENS', () => {
  it.each([
    ['no Authorization header', {}],
    ['an unlisted token', { authorization: 'Bearer not-a-listed-token' }],
    ['a listed token cut short', { authorization: `Bearer ${tokens[0]?.slice(0, -1)}` }],
    ['a listed token with more after it', { authorization: `Bearer ${tokens[0]}x` }],
    ['both tokens joined', { authorization: `Bearer ${tokens.join(',')}` }],
    [
      'the Basic scheme',
      { authorization: `Basic ${Buffer.from(`u:${tokens[0]}`).toString('base64')}` },
    ],
    ['the token without a scheme', { authorization: tokens[0] ?? '' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])(
    'answers 401 with WWW-Authenticate to an operation with %s, and calls no upstream',
    async (_, headers) => {
      const before = upstreamCalls(stack);
      await expectRefused(await post(headers));
      expect(upstreamCalls(stack)).toBe(before);
    },
  );

  it('runs the operation for each listed token, the scheme in any case', async () => {
    for (const authorization of [`Bearer ${tokens[0]}`, `bearer ${tokens[1]}`]) {
      const before = stack.vro.requests.length;
      const response = await post({ authorization });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ data: { workflows: { totalCount: 61 } } });
      expect(stack.vro.requests.length).toBe(before + 1);
    }
  });

  it('never forwards the gateway token to an upstream', async () => {
    const from = stack.vro.requests.length;
    await post({ authorization: `Bearer ${tokens[0]}` });
    const sent = stack.vro.requests.slice(from);
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0]?.headers)).not.toContain(tokens[0]);
  });

  it('refuses a GET operation and a batched request without a token', async () => {
    const before = upstreamCalls(stack);
    await expectRefused(
      await stack.fetch(`/graphql?query=${encodeURIComponent(query)}`, {
        headers: { accept: 'application/json' },
      }),
    );
    await expectRefused(await post({}, '/graphql', [{ query }, { query }]));
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('refuses a GET naming its operation in other parameters than query without a token', async () => {
    for (const search of ['?documentId=abc123', '?extensions=%7B%7D', '']) {
      await expectRefused(
        await stack.fetch(`/graphql${search}`, { headers: { accept: 'application/json' } }),
      );
    }
  });

  it('answers a browser GET that carries a query with the GraphiQL page, running nothing', async () => {
    const before = upstreamCalls(stack);
    const page = await stack.fetch(`/graphql?query=${encodeURIComponent(query)}`, {
      headers: { accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('answers 404 on the other paths yoga would route to GraphQL, token or not', async () => {
    const before = upstreamCalls(stack);
    for (const path of ['/graphql/', '/x/graphql', '//graphql', '/x?y=/graphql', '/a/graphql/']) {
      for (const headers of [{}, { authorization: `Bearer ${tokens[0]}` }]) {
        const response = await post(headers, path);
        expect({ path, status: response.status }).toEqual({ path, status: 404 });
      }
    }
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('serves the GraphiQL page, /health and /metrics without a token', async () => {
    const page = await stack.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<html');
    expect((await stack.fetch('/health')).status).toBe(200);
    const metrics = await stack.fetch('/metrics');
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('upstream_circuit_state');
  });

  it('serves /ready without a token', async () => {
    const ready = await stack.fetch('/ready');
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { status: string }).status).toBe('ready');
  });

  it('refuses a subscription over SSE without a token and opens it with one', async () => {
    const run = await stack.gql<any>(
      'mutation { runWorkflow(workflowId: "aefcfad8-efc8-4849-b3aa-7efe4458a885") { execution { id } } }',
      {},
      { authorization: `Bearer ${tokens[0]}` },
    );
    const executionId = run.data?.runWorkflow.execution.id as string;
    const subscription = `subscription($e: ID!) {
      workflowExecution(workflowId: "aefcfad8-efc8-4849-b3aa-7efe4458a885", executionId: $e) { id }
    }`;
    const polls = () => stack.vro.requests.filter((r) => r.rawPath.includes(executionId)).length;

    const before = polls();
    const refused = await SseSubscription.open(server.url, subscription, { e: executionId });
    expect(refused.status).toBe(401);
    expect(refused.refusal().errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(polls()).toBe(before);

    const accepted = await SseSubscription.open(
      server.url,
      subscription,
      { e: executionId },
      { authorization: `Bearer ${tokens[1]}` },
    );
    try {
      expect(accepted.status).toBe(200);
      const first = await accepted.next();
      expect(first?.data.data.workflowExecution.id).toBe(executionId);
      expect(polls()).toBeGreaterThan(before);
    } finally {
      accepted.close();
    }
  });
});
