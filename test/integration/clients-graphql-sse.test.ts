import { createClient, type Client } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectCompletedRun,
  expectRunStarted,
  expectWorkflowPage,
  followVariables,
  followWorkflowRun,
  listWorkflows,
  runWorkflow,
  startClientStack,
  type ClientStack,
} from '../helpers/clients.ts';

let gateway: ClientStack;

beforeAll(async () => {
  gateway = await startClientStack({ env: { GATEWAY_TOKENS: 'sse-token' } });
});
afterAll(() => gateway.close());

/** Every result of one operation, until the server completes it. */
async function collect(
  client: Client,
  document: string,
  variables: Record<string, unknown>,
): Promise<unknown[]> {
  const results: unknown[] = [];
  for await (const result of client.iterate({ query: document, variables })) {
    expect(result.errors).toBeUndefined();
    results.push(result.data);
  }
  return results;
}

describe.each([
  ['distinct connections', false],
  ['a single connection', true],
])('graphql-sse over %s', (_mode, singleConnection) => {
  let client: Client;
  beforeAll(() => {
    client = createClient({
      url: gateway.endpoint,
      singleConnection,
      headers: { authorization: 'Bearer sse-token' },
      retryAttempts: 0,
    });
  });
  afterAll(() => client.dispose());

  it('runs a query', async () => {
    const [page] = await collect(client, listWorkflows.document, listWorkflows.variables);
    expectWorkflowPage(page);
  });

  it('runs a mutation and follows the run to COMPLETED', async () => {
    const from = gateway.stack.vro.requests.length;
    const [run] = await collect(client, runWorkflow.document, runWorkflow.variables);
    const executionId = expectRunStarted(gateway.stack, from, run);
    expectCompletedRun(
      await collect(client, followWorkflowRun.document, followVariables(executionId)),
    );
  });

  it('is refused without the gateway token, and nothing reaches vRO', async () => {
    const anonymous = createClient({ url: gateway.endpoint, singleConnection, retryAttempts: 0 });
    const before = gateway.stack.vro.requests.length;
    try {
      await expect(
        collect(anonymous, listWorkflows.document, listWorkflows.variables),
      ).rejects.toBeDefined();
    } finally {
      anonymous.dispose();
    }
    expect(gateway.stack.vro.requests.length).toBe(before);
  });
});
