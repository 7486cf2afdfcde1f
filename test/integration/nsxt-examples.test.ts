/**
 * Every network example of examples/ against the NSX-T simulator, which
 * checks each request body against the Policy API definitions
 * (src/simulators/specs/nsxt/) and refuses what is not one with 400, and
 * checks each answer it sends. The examples carry NSX-v ids (`ipset-3`,
 * `edge-1`, …); each is run with the NSX-T seed's counterpart. What
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
  type Example,
} from '../helpers/examples.ts';
import { startNsxtStack } from '../helpers/nsxt-stack.ts';
import type { GraphQLAnswer, Stack } from '../helpers/stack.ts';

const network = rootFieldsOfSchemas('network.graphql');
const examples = readExamples().filter((e) =>
  rootFieldNames(e.document).some((field) => network.has(field)),
);

/** NSX-v ids of the examples and the NSX-T seed's objects standing for them. */
const ids: Array<[RegExp, string]> = [
  [/"ipset-3"/g, '"web-servers"'],
  [/"ipset-7"/g, '"ipv6-mgmt"'],
  [/"application-400"/g, '"app-8443"'],
  [/"application-401"/g, '"app-8443"'],
  [/"edge-1"/g, '"t1-web"'],
  [/"virtualServer-1"/g, '"web-vip"'],
  [/"sectionId":"4"/g, '"sectionId":"app-tier"'],
  [/"id":"4"/g, '"id":"app-tier"'],
  [/"ruleId":"12"/g, '"ruleId":"allow-web"'],
  [/"applicationProfile-1"/g, '"default-http-lb-app-profile"'],
];

function nsxtIds<T>(value: T): T {
  let text = JSON.stringify(value === undefined ? null : value);
  for (const [from, to] of ids) text = text.replace(from, to);
  return JSON.parse(text) as T;
}

function nsxtDocument(document: string): string {
  return document
    .replaceAll('"ipset-3"', '"web-servers"')
    .replaceAll('"application-400"', '"app-8443"');
}

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
  // the examples ask for HTTPS, which needs a certificate binding the input cannot carry
  'add-virtual-server': 'not-supported',
  'update-virtual-server': 'not-supported',
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
  variables: Example['variables'] = nsxtIds(example.variables),
): Promise<GraphQLAnswer<any>> {
  return stack.gql<any>(nsxtDocument(example.document), variables);
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
      let variables = nsxtIds(example.variables);
      if (name === 'delete-service') {
        // every seeded service is system owned or in use: delete one the create example made
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
    'runs %s with HTTP instead of HTTPS, and the simulator refuses none of its requests',
    async (name) => {
      const example = examples.find((e) => e.name === name)!;
      const variables = nsxtIds(example.variables) as { input: Record<string, unknown> };
      variables.input['protocol'] = 'HTTP';
      variables.input['port'] = '80';
      const answer = await run(example, variables);
      expectNetworkFieldsComplete(example, answer);
      expect(sim.requests.some((r) => r.method === 'PUT')).toBe(true);
      expectNoViolations();
    },
  );
});
