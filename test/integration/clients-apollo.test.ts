import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
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
let client: ApolloClient;

beforeAll(async () => {
  gateway = await startClientStack();
  client = new ApolloClient({
    link: new HttpLink({ uri: gateway.endpoint }),
    cache: new InMemoryCache(),
  });
});
afterAll(async () => {
  client.stop();
  await gateway.close();
});

describe('@apollo/client (core, HttpLink defaults)', () => {
  it('runs a query', async () => {
    const result = await client.query({
      query: gql(listWorkflows.document),
      variables: listWorkflows.variables,
    });
    expect(result.error).toBeUndefined();
    expectWorkflowPage(result.data);
  });

  it('runs a mutation and follows the run (multipart HTTP subscription) to COMPLETED', async () => {
    const from = gateway.stack.vro.requests.length;
    const run = await client.mutate({
      mutation: gql(runWorkflow.document),
      variables: runWorkflow.variables,
    });
    expect(run.error).toBeUndefined();
    const executionId = expectRunStarted(gateway.stack, from, run.data);

    const events: unknown[] = [];
    await new Promise<void>((resolve, reject) => {
      client
        .subscribe({
          query: gql(followWorkflowRun.document),
          variables: followVariables(executionId),
        })
        .subscribe({
          next: (result) => {
            if (result.error === undefined) events.push(result.data);
            else reject(new Error(result.error.message));
          },
          error: (error: unknown) =>
            reject(error instanceof Error ? error : new Error(String(error))),
          complete: resolve,
        });
    });
    expectCompletedRun(events);
  });
});
