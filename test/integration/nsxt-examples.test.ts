/**
 * Every network example of examples/ against the NSX-T simulator, which
 * checks each request body against the Policy API definitions
 * (simulators/nsx/t/specs/) and refuses what is not one with 400, and
 * checks each answer it sends. Each runs with its variables as
 * `<name>.nsxt.variables.json` has them (else the plain file): what a user
 * runs against `NSX_API=t npm start`. What
 * docs/generations.md says NSX-T answers NOT_SUPPORTED (or null) is asserted
 * to answer so, with no call. After each example the simulator must have
 * recorded no refused request and no answer that breaks its definition.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { NsxtSimulator } from '../../simulators/nsx/t/index.ts';
import {
  readExamples,
  rootFieldNames,
  rootFieldsOfSchemas,
  variablesOn,
  type Example,
} from '../helpers/examples.ts';
import { startNsxtStack } from '../helpers/nsxt-stack.ts';
import type { GraphQLAnswer, Stack } from '../helpers/stack.ts';

const network = rootFieldsOfSchemas('network.graphql');
const examples = readExamples().filter((e) =>
  rootFieldNames(e.document).some((field) => network.has(field)),
);

type Outcome =
  /** every network root field answered, none null, no error */
  | 'complete'
  /** NOT_SUPPORTED naming NSX-T, no call */
  | 'not-supported'
  /** null without an error, no call (applicationFirewall) */
  | 'null';

/** What docs/generations.md says NSX-T answers for each network example, as it stands. */
const outcomes: Record<string, Outcome> = {
  'add-firewall-rule': 'not-supported',
  'remove-firewall-rule': 'not-supported',
  'replace-firewall-rules': 'not-supported',
  'application-firewall': 'null',
  'force-sync-edge': 'not-supported',
};

let sim: NsxtSimulator;
let stack: Stack;

let close: () => Promise<void>;

beforeAll(async () => {
  ({ sim, stack, close } = await startNsxtStack());
});
beforeEach(() => sim.reset());
afterAll(() => close());

async function run(
  example: Example,
  variables: Example['variables'] = variablesOn(example, 'nsxt'),
): Promise<GraphQLAnswer<any>> {
  return stack.gql<any>(example.document, variables);
}

function expectNoViolations(): void {
  expect(sim.counters.refusals).toEqual([]);
  expect(sim.counters.answerViolations).toEqual([]);
}

function expectNetworkFieldsComplete(example: Example, answer: GraphQLAnswer<any>): void {
  const fields = rootFieldNames(example.document).filter(
    (field) => network.has(field) && field !== 'applicationFirewall',
  );
  const networkErrors = (answer.errors ?? []).filter((e) => fields.includes(String(e.path?.[0])));
  expect(networkErrors).toEqual([]);
  for (const field of fields) expect(answer.data?.[field], field).not.toBeNull();
}

describe('NSX-T: the network examples', () => {
  it('finds the network examples and knows what NSX-T answers for each', () => {
    expect(examples.length).toBeGreaterThanOrEqual(22);
    for (const name of Object.keys(outcomes)) {
      expect(examples.map((e) => e.name)).toContain(name);
    }
  });

  it.each(examples.map((e) => [e.name, e] as const))(
    'runs %s against the NSX-T simulator, which refuses none of its requests',
    async (name, example) => {
      const outcome = outcomes[name] ?? 'complete';
      let variables = variablesOn(example, 'nsxt');
      if (name === 'delete-service') {
        // every seeded service is system owned or in use: the file leaves the id to fill in
        // with the one the create example returned
        expect(variables?.['id']).toMatch(/^<.+>$/);
        const created = await run(readExamples().find((e) => e.name === 'create-service')!);
        variables = { ...variables, id: created.data.createService.id as string };
        sim.requests.length = 0;
      }
      const answer = await run(example, variables);
      if (outcome === 'not-supported') {
        expect(answer.errors?.[0]?.extensions).toMatchObject({
          code: 'NOT_SUPPORTED',
          generation: 'NSX-T',
        });
        expect(sim.requests).toEqual([]);
      } else if (outcome === 'null') {
        expect(answer.errors).toBeUndefined();
        expect(Object.values(answer.data ?? {})).toEqual([null]);
        expect(sim.requests).toEqual([]);
      } else {
        expectNetworkFieldsComplete(example, answer);
        expect(sim.requests.length).toBeGreaterThan(0);
      }
      expectNoViolations();
    },
  );

  it.each(['add-virtual-server', 'update-virtual-server'])(
    'answers %s with HTTPS, as the NSX-v file asks, NOT_SUPPORTED on NSX-T with no call',
    async (name) => {
      const example = examples.find((e) => e.name === name)!;
      // the NSX-T file asks for HTTP: HTTPS needs a certificate binding the input cannot carry
      const own = variablesOn(example, 'nsxt') as { input: Record<string, unknown> };
      expect(own.input['protocol']).toBe('HTTP');
      const first = example.variables as { input: Record<string, unknown> };
      expect(first.input['protocol']).toBe('HTTPS');
      const answer = await run(example, {
        ...own,
        input: { ...own.input, protocol: first.input['protocol'], port: first.input['port'] },
      });
      expect(answer.errors?.[0]?.extensions).toMatchObject({
        code: 'NOT_SUPPORTED',
        generation: 'NSX-T',
      });
      expect(sim.requests).toEqual([]);
      expectNoViolations();
    },
  );
});
