import { Client, fetchExchange } from '@urql/core';
import { onPush, pipe, toPromise } from 'wonka';
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
let client: Client;
/** The HTTP methods urql used, in order (its fetch is the global one, only watched). */
const methods: string[] = [];

beforeAll(async () => {
  gateway = await startClientStack();
  // docs/front-end.md's one line for urql: `fetchSubscriptions: true` (its defaults otherwise).
  client = new Client({
    url: gateway.endpoint,
    exchanges: [fetchExchange],
    fetchSubscriptions: true,
    fetch: (input, init) => {
      methods.push(init?.method ?? 'GET');
      return fetch(input, init);
    },
  });
});
afterAll(() => gateway.close());

describe('@urql/core', () => {
  it('runs a query with its defaults: a GET without any extra header', async () => {
    const from = gateway.stack.vro.requests.length;
    const result = await client.query(listWorkflows.document, listWorkflows.variables).toPromise();
    expect(result.error).toBeUndefined();
    expect(methods.at(-1)).toBe('GET');
    expectWorkflowPage(result.data);
    expect(gateway.stack.vro.requests.length).toBeGreaterThan(from);
  });

  it('runs a mutation (POST) and follows the run over SSE to COMPLETED', async () => {
    const from = gateway.stack.vro.requests.length;
    const run = await client.mutation(runWorkflow.document, runWorkflow.variables).toPromise();
    expect(run.error).toBeUndefined();
    const executionId = expectRunStarted(gateway.stack, from, run.data);

    const events: unknown[] = [];
    const last = await pipe(
      client.subscription(followWorkflowRun.document, followVariables(executionId)),
      onPush((result) => events.push(result.data)),
      toPromise,
    );
    expect(last.error).toBeUndefined();
    expectCompletedRun(events);
  });
});
