import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  readExamples,
  rootFieldNames,
  rootFieldsOfSchemas,
  secondGenerations,
  variablesFiles,
  type Example,
} from '../helpers/examples.ts';
import { startStack, type GraphQLAnswer, type Stack } from '../helpers/stack.ts';

const examples = readExamples();
const byName = (name: string): Example => {
  const example = examples.find((e) => e.name === name);
  if (example === undefined) throw new Error(`no example ${name}`);
  return example;
};
const samplePackage = readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url));
const step = 1000;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

/** What a client sends for an example: the file as-is, with its variables file. */
async function send(
  s: Stack,
  example: Example,
  variables = example.variables,
  headers: Record<string, string> = {},
): Promise<GraphQLAnswer<any>> {
  if (example.name === 'import-package') return upload(s, example);
  if (example.operationType === 'subscription') return subscribe(s, example, variables);
  return s.gql<any>(example.document, variables, headers);
}

async function upload(s: Stack, example: Example): Promise<GraphQLAnswer<any>> {
  const body = new FormData();
  body.append(
    'operations',
    JSON.stringify({ query: example.document, variables: example.variables }),
  );
  body.append('map', JSON.stringify({ 0: ['variables.file'] }));
  body.append('0', new File([samplePackage], 'sample.package'));
  const response = await s.fetch('/graphql', { method: 'POST', body });
  const answer = (await response.json()) as { data?: any; errors?: GraphQLAnswer['errors'] };
  return { status: response.status, headers: response.headers, ...answer } as GraphQLAnswer<any>;
}

/** Reads the whole SSE stream of a subscription; its last `next` event as the answer. */
async function subscribe(
  s: Stack,
  example: Example,
  variables: Example['variables'],
): Promise<GraphQLAnswer<any>> {
  const response = await s.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: example.document, variables }),
  });
  const text = await response.text();
  expect(text).toContain('event: complete');
  const events = text
    .split('\n\n')
    .filter((block) => block.startsWith('event: next'))
    .map(
      (block) =>
        JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as Pick<
          GraphQLAnswer<any>,
          'data' | 'errors'
        >,
    );
  expect(events.length).toBeGreaterThan(0);
  const last = events.at(-1)!;
  return {
    status: response.status,
    headers: response.headers,
    data: last.data,
    errors: last.errors,
  };
}

/** Runs run-workflow.graphql and lets the run finish: the execution id the run examples need. */
async function finishedRun(s: Stack): Promise<string> {
  const run = await send(s, byName('run-workflow'));
  expect(run.errors).toBeUndefined();
  s.vro.advance(10 * step);
  return run.data.runWorkflow.execution.id as string;
}

/** Runs run-workflow.graphql and leaves the run going: the execution id cancel-workflow-run needs. */
async function runningRun(s: Stack): Promise<string> {
  const run = await send(s, byName('run-workflow'));
  expect(run.errors).toBeUndefined();
  return run.data.runWorkflow.execution.id as string;
}

async function vraToken(s: Stack): Promise<string> {
  const response = await fetch(new URL('/identity/api/tokens', s.vra.url), {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({
      username: s.vra.username,
      password: s.vra.password,
      tenant: s.vra.tenant,
    }),
  });
  return ((await response.json()) as { id: string }).id;
}

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

/** Every root field came back, none null, and no error. */
function expectComplete(answer: GraphQLAnswer<any>): void {
  expect(answer.errors).toBeUndefined();
  expect(answer.data).toBeTypeOf('object');
  for (const [field, value] of Object.entries(answer.data ?? {})) {
    expect(value, field).not.toBeNull();
  }
}

describe('examples/', () => {
  it('has one example per use case, each with its variables file when it declares variables', () => {
    expect(examples.length).toBeGreaterThanOrEqual(26);
    for (const example of examples) {
      const declares = /^\s*(query|mutation|subscription)\s+\w+\s*\(/m.test(example.document);
      expect(example.variables !== undefined, example.name).toBe(declares);
      expect(example.document.startsWith('# '), example.name).toBe(true);
    }
    const readme = readFileSync(new URL('../../examples/README.md', import.meta.url), 'utf8');
    for (const example of examples)
      expect(readme, example.name).toContain(`${example.name}.graphql`);
  });

  it("names each variables file in its example's header, and has none of no example or generation", () => {
    const names = new Set(examples.map((e) => e.name));
    for (const { file, example, generation } of variablesFiles()) {
      expect(names.has(example), file).toBe(true);
      if (generation !== undefined) expect(secondGenerations, file).toContain(generation);
      const header = byName(example)
        .document.split('\n')
        .filter((line) => line.startsWith('#'))
        .join(' ')
        .replaceAll('# ', ' ');
      expect(header, file).toContain(file);
    }
  });

  it('runs every example on both generations: each is one of vRO, whose examples know none, or is run on vRA 8 or NSX-T', () => {
    // vra8-examples.test.ts runs every example with a catalog field on vRA 8,
    // nsxt-examples.test.ts every example with a network field on NSX-T
    const vro = rootFieldsOfSchemas('orchestration.graphql');
    const second = rootFieldsOfSchemas('catalog.graphql', 'identity.graphql', 'network.graphql');
    for (const example of examples) {
      const fields = rootFieldNames(example.document);
      expect(fields.length, example.name).toBeGreaterThan(0);
      for (const field of fields)
        expect(vro.has(field) || second.has(field), `${example.name}: ${field}`).toBe(true);
      if (!fields.some((field) => second.has(field)))
        expect(Object.keys(example.variablesOf ?? {}), example.name).toEqual([]);
    }
    for (const example of examples)
      for (const generation of Object.keys(example.variablesOf ?? {})) {
        const schemas =
          generation === 'vra8' ? ['catalog.graphql', 'identity.graphql'] : ['network.graphql'];
        const fields = rootFieldsOfSchemas(...schemas);
        expect(
          rootFieldNames(example.document).some((field) => fields.has(field)),
          `${example.name}.${generation}`,
        ).toBe(true);
      }
  });

  it.each(examples.map((e) => [e.name, e]))(
    'runs %s as-is against the simulators',
    async (_name, example) => {
      stack = await startStack({ vro: { manualClock: true, stepMs: step } });
      let variables = example.variables;
      let headers: Record<string, string> = {};
      if (example.name === 'cancel-workflow-run') {
        variables = { ...variables, executionId: await runningRun(stack) };
      } else if (variables !== undefined && 'executionId' in variables) {
        variables = { ...variables, executionId: await finishedRun(stack) };
      }
      if (example.name === 'as-a-user') {
        headers = {
          'x-vra-authorization': `Bearer ${await vraToken(stack)}`,
          'x-vro-authorization': basic(stack.vro.username, stack.vro.password),
          'x-nsx-authorization': basic(stack.nsx.username, stack.nsx.password),
        };
      }
      const answer = await send(stack, example, variables, headers);
      expectComplete(answer);
      if (example.name === 'follow-workflow-run') {
        expect(answer.data.workflowExecution.state).toBe('COMPLETED');
      }
      if (example.name === 'cancel-workflow-run') {
        expect(answer.data.cancelWorkflowExecution.state).toBe('CANCELED');
        expect(stack.vro.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
      }
      if (example.name === 'workflow-run-logs') {
        expect(answer.data.workflowExecution.logs.at(0).message).toMatch(/has completed$/);
      }
      if (example.name === 'workflow-executions') {
        expect(answer.data.workflow.executions.nodes.length).toBeGreaterThan(0);
      }
      if (example.name === 'workflow-form') {
        expect(answer.data.workflow.form.fields.length).toBeGreaterThan(0);
      }
    },
  );
});
