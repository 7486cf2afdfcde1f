import { parse, print } from 'graphql';
import { GraphQLClient } from 'graphql-request';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  expectRunStarted,
  expectWorkflowPage,
  listWorkflows,
  runWorkflow,
  startClientStack,
  type ClientStack,
} from '../helpers/clients.ts';

let gateway: ClientStack;

beforeAll(async () => {
  gateway = await startClientStack();
});
afterAll(() => gateway.close());

describe('graphql-request (defaults; it has no subscriptions)', () => {
  it('runs a query and a mutation', async () => {
    const client = new GraphQLClient(gateway.endpoint);
    expectWorkflowPage(await client.request(listWorkflows.document, listWorkflows.variables));
    const from = gateway.stack.vro.requests.length;
    const run = await client.request(runWorkflow.document, runWorkflow.variables);
    expectRunStarted(gateway.stack, from, run);
  });

  it("runs a query as GET when asked (`method: 'GET'`), no CSRF header needed", async () => {
    const client = new GraphQLClient(gateway.endpoint, { method: 'GET' });
    // printed without its comments: graphql-request puts the document on one line for GET
    const document = print(parse(listWorkflows.document));
    expectWorkflowPage(await client.request(document, listWorkflows.variables));
  });
});
