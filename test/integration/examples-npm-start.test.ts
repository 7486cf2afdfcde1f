/**
 * What the examples' README tells a user to do: start the gateway as
 * `npm start` does (src/main.ts with its flags, no *_URL: the built-in
 * simulators), once on the first generation and once with
 * `VRA_API_GENERATION=8 NSX_API=t`, and send every catalog and network
 * example over HTTP with its generation's variables file as it is. Only the
 * ids a file leaves in angle brackets are filled in, from the answer of the
 * example its header names. One gateway per start runs every example in
 * turn, as a user would: the order first, followed to its end (what the
 * others read and act on), the deletions last. What docs/generations.md says the second generation lacks
 * answers exactly null or NOT_SUPPORTED. (vRO has one generation: its
 * examples run in examples.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  readExamples,
  rootFieldNames,
  rootFieldsOfSchemas,
  rootResponseKeys,
  type Example,
} from '../helpers/examples.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const secondGeneration = rootFieldsOfSchemas(
  'catalog.graphql',
  'identity.graphql',
  'network.graphql',
);
/** The order, then following it to its end, then the rest, the deletions last. */
const turn = (name: string): number =>
  ['order-catalog-item', 'follow-catalog-request'].indexOf(name) + 1 ||
  (name.startsWith('delete-') ? 4 : 3);
const examples = readExamples()
  .filter((e) => rootFieldNames(e.document).some((field) => secondGeneration.has(field)))
  .sort((a, b) => turn(a.name) - turn(b.name) || a.name.localeCompare(b.name));

interface Start {
  name: string;
  env: Record<string, string>;
  variablesOf(example: Example): Example['variables'];
  /** Root response keys answered null, no error, per example. */
  nulls: Record<string, string[]>;
  /** Examples answered NOT_SUPPORTED naming the generation. */
  notSupported: Record<string, 'vRA 8' | 'NSX-T'>;
}

const starts: Start[] = [
  {
    name: 'npm start',
    env: {},
    variablesOf: (example) => example.variables,
    nulls: {},
    notSupported: {},
  },
  {
    name: 'VRA_API_GENERATION=8 NSX_API=t npm start',
    env: { VRA_API_GENERATION: '8', NSX_API: 't' },
    variablesOf: (example) =>
      example.variablesOf?.vra8 ?? example.variablesOf?.nsxt ?? example.variables,
    nulls: {
      providers: ['providers', 'iaas'],
      explore: ['providers', 'applicationFirewall'],
      'application-firewall': ['applicationFirewall'],
    },
    notSupported: {
      'register-catalog-item': 'vRA 8',
      'add-firewall-rule': 'NSX-T',
      'remove-firewall-rule': 'NSX-T',
      'replace-firewall-rules': 'NSX-T',
      'force-sync-edge': 'NSX-T',
    },
  },
];

const placeholder = /^<.+>$/;

describe.each(starts)(
  'every catalog and network example, as its file has it, on $name',
  (start) => {
    let gateway: SpawnedGateway;
    let endpoint: URL;
    /** Ids earlier examples returned, by the variable a later file leaves to fill in. */
    const returned: Record<string, string> = {};

    beforeAll(async () => {
      gateway = spawnGateway({
        PORT: '0',
        LOG_LEVEL: 'info',
        SIMULATOR_VRA_STEP_MS: '20',
        ...start.env,
      });
      endpoint = new URL(`http://127.0.0.1:${await gateway.port()}/graphql`);
    });
    afterAll(async () => {
      gateway.kill();
      await gateway.exited;
    });

    async function post(example: Example, variables: Example['variables']): Promise<any> {
      const sse = example.operationType === 'subscription';
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: sse ? 'text/event-stream' : 'application/json',
        },
        body: JSON.stringify({ query: example.document, variables }),
      });
      if (!sse) return response.json();
      const text = await response.text();
      expect(text).toContain('event: complete');
      const events = text
        .split('\n\n')
        .filter((block) => block.startsWith('event: next'))
        .map((block) => JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as unknown);
      return events.at(-1);
    }

    /** The file's variables with each angle-bracket id replaced by the one an earlier example returned. */
    function filled(variables: Example['variables']): Example['variables'] {
      if (variables === undefined) return undefined;
      return JSON.parse(JSON.stringify(variables), (key, value: unknown) => {
        if (typeof value !== 'string' || !placeholder.test(value)) return value;
        expect(returned[key], `an earlier example returns ${key}`).toBeDefined();
        return returned[key];
      }) as Example['variables'];
    }

    it.each(examples.map((e) => [e.name, e] as const))('runs %s', async (name, example) => {
      const answer = await post(example, filled(start.variablesOf(example)));
      const generation = start.notSupported[name];
      if (generation !== undefined) {
        expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_SUPPORTED', generation });
        expect(answer.data).toBeNull();
        return;
      }
      expect(answer.errors).toBeUndefined();
      const nulls = start.nulls[name] ?? [];
      for (const key of rootResponseKeys(example.document))
        if (nulls.includes(key)) expect(answer.data[key], key).toBeNull();
        else expect(answer.data[key], key).not.toBeNull();
      if (name === 'order-catalog-item') {
        returned['requestId'] = answer.data.requestCatalogItem.request.id as string;
      }
      if (name === 'create-service') returned['id'] = answer.data.createService.id as string;
      if (name === 'follow-catalog-request') {
        expect(answer.data.catalogRequest.final).toBe(true);
      }
      if (name === 'catalog-request-resources') {
        const machine = (answer.data.catalogRequest.resources as Array<any>).find(
          (r) => r.resourceType === 'Cloud.vSphere.Machine',
        );
        if (machine !== undefined) returned['resourceId'] = machine.id as string;
      }
    });
  },
);
