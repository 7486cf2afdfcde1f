import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.ts';
import type { GatewayOptions } from '../../src/server.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
const query = 'query Few { workflows(first: 2) { nodes { id } } }';
const operationCount =
  'graphql_operation_duration_seconds_count{operation_type="query",operation_name="Few",outcome="ok"}';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function started(
  without: GatewayOptions['without'],
): Promise<{ stack: Stack; lines: Array<{ msg: string }> }> {
  const lines: Array<{ msg: string }> = [];
  const logger = createLogger('info', {
    write(line: string) {
      lines.push(JSON.parse(line) as { msg: string });
    },
  });
  stack = await startStack({ logger, ...(without === undefined ? {} : { without }) });
  return { stack, lines };
}

const requestLines = (lines: ReadonlyArray<{ msg: string }>) =>
  lines.filter((line) => line.msg === 'graphql request');

describe('a gateway composed without a feature (the benchmark of each feature)', () => {
  it('writes a request line per request and serves /metrics when nothing is left out', async () => {
    const { stack, lines } = await started(undefined);
    expect((await stack.gql(query)).errors).toBeUndefined();
    expect(requestLines(lines)).toHaveLength(1);
    expect(await (await stack.fetch('/metrics')).text()).toContain(`${operationCount} 1`);
  });

  it('without the request log writes no request line, yet still counts the operation and sends X-Request-Id', async () => {
    const { stack, lines } = await started(['request-log']);
    const answer = await stack.gql(query);
    expect(answer.errors).toBeUndefined();
    expect(answer.headers.get('x-request-id')).toMatch(/./);
    expect(requestLines(lines)).toHaveLength(0);
    expect(await (await stack.fetch('/metrics')).text()).toContain(`${operationCount} 1`);
  });

  it('without metrics serves no /metrics and still writes the request line', async () => {
    const { stack, lines } = await started(['metrics']);
    expect((await stack.gql(query)).errors).toBeUndefined();
    expect(requestLines(lines)).toHaveLength(1);
    expect((await stack.fetch('/metrics')).status).toBe(404);
  });

  it('without the root-field guard runs a mutation without writing its audit events', async () => {
    const { stack } = await started(['root-guard']);
    const answer = await stack.gql(
      'mutation($w: ID!) { runWorkflow(workflowId: $w) { execution { id } } }',
      { w: echo },
    );
    expect(answer.errors).toBeUndefined();
    expect(stack.audit).toHaveLength(0);
  });

  it('with the root-field guard writes the started and completed events of that mutation', async () => {
    const { stack } = await started(undefined);
    const answer = await stack.gql(
      'mutation($w: ID!) { runWorkflow(workflowId: $w) { execution { id } } }',
      { w: echo },
    );
    expect(answer.errors).toBeUndefined();
    expect(stack.audit.map((event) => event.stage)).toEqual(['started', 'completed']);
  });
});
