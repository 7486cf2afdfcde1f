/**
 * A generic front-end, the same operation documents on vRA 7 and vRA 8: it
 * reads an item's `form`, fills what the form asks for and orders with
 * `values`. Nothing in it knows which generation answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generations, type GenerationStack } from '../helpers/generations.ts';

const formsDocument = /* GraphQL */ `
  query Forms {
    entitledCatalogItems(first: 50) {
      nodes {
        id
        name
        form {
          fields {
            name
            label
            type
            required
            readOnly
            defaultValue
            choices {
              value
              label
            }
            minimum
            maximum
            minLength
            maxLength
            pattern
            group
          }
        }
      }
    }
  }
`;

const orderDocument = /* GraphQL */ `
  mutation Order($input: RequestCatalogItemInput!) {
    requestCatalogItem(input: $input) {
      request {
        id
        state
      }
    }
  }
`;

interface Field {
  name: string;
  label: string | null;
  type: string;
  required: boolean;
  readOnly: boolean;
  defaultValue: unknown;
  choices: Array<{ value: unknown; label: string | null }> | null;
  minimum: number | null;
  maximum: number | null;
  minLength: number | null;
  maxLength: number | null;
  pattern: string | null;
  group: string | null;
}

/** What a person would type for a field the form requires: the first choice, else a value in bounds. */
function filled(field: Field): unknown {
  if (field.choices !== null && field.choices.length > 0) return field.choices[0]!.value;
  if (field.type === 'integer' || field.type === 'number') return field.minimum ?? 1;
  if (field.type === 'boolean') return false;
  return 'web01'.padEnd(field.minLength ?? 0, '0').slice(0, field.maxLength ?? 63);
}

/** The generic front-end's choice of values: every required field without a default, and one more CPU. */
function valuesFor(fields: Field[]): Array<{ name: string; value: unknown }> {
  const values = fields
    .filter((field) => field.required && !field.readOnly && field.defaultValue === null)
    .map((field) => ({ name: field.name, value: filled(field) }));
  const cpu = fields.find((field) => /cpu/i.test(field.name) && field.type === 'integer');
  if (cpu !== undefined) values.push({ name: cpu.name, value: 2 });
  return values;
}

describe.each(generations)('a generic front-end on $name', (generation) => {
  let harness: GenerationStack;
  beforeAll(async () => {
    harness = await generation.start();
  });
  afterAll(async () => {
    await harness.close();
  });

  async function formOf(itemId: string): Promise<Field[]> {
    const answer = await harness.stack.gql<any>(formsDocument);
    expect(answer.errors).toBeUndefined();
    const item = answer.data.entitledCatalogItems.nodes.find((node: any) => node.id === itemId);
    expect(item?.form).not.toBeNull();
    return item.form.fields as Field[];
  }

  const submits = () =>
    harness.vra.requests.filter(
      (request) => request.method === 'POST' && /\/requests?$/.test(request.path),
    );

  it('reads the form of every entitled item: named, typed fields, with labels', async () => {
    const answer = await harness.stack.gql<any>(formsDocument);
    expect(answer.errors).toBeUndefined();
    const nodes = answer.data.entitledCatalogItems.nodes as Array<{ form: { fields: Field[] } }>;
    expect(nodes.length).toBeGreaterThan(0);
    for (const node of nodes) {
      expect(node.form.fields.length).toBeGreaterThan(0);
      for (const field of node.form.fields) {
        expect(field.name).not.toBe('');
        expect(field.label).not.toBeNull();
        expect(['string', 'integer', 'number', 'boolean', 'array', 'object']).toContain(field.type);
      }
    }
  });

  it('orders an item with values filled from its form, and the appliance receives them in its own shape', async () => {
    const fields = await formOf(generation.ids.centos.id);
    const cpu = fields.find((field) => /cpu/i.test(field.name) && field.type === 'integer');
    expect(cpu).toBeDefined();
    const before = submits().length;
    const answer: any = await harness.stack.gql<any>(orderDocument, {
      input: {
        catalogItemId: generation.ids.centos.id,
        values: valuesFor(fields),
        deploymentName: 'generic-front-end-1',
      },
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data.requestCatalogItem.request.id).toEqual(expect.any(String));
    const sent = submits().slice(before);
    expect(sent).toHaveLength(1);
    const body = JSON.parse(sent[0]!.body.toString('utf8'));
    if (generation.generation === '8') {
      // vRA 8: flat inputs, the deployment named as asked
      expect(body.deploymentName).toBe('generic-front-end-1');
      expect(body.inputs.cpuCount).toBe(2);
      expect(body.inputs.hostname).toBe('web01');
    } else {
      // vRA 7: the value in its component's data; the name as the description
      expect(body.description).toBe('generic-front-end-1');
      expect(body.data[cpu!.group!].data.cpu).toBe(2);
    }
    expect(harness.vra.refusals()).toEqual([]);
  });

  it("types vRA 7's own request settings as whole numbers, so a lease in days can be given", async () => {
    const fields = await formOf(generation.ids.centos.id);
    const lease = fields.find((field) => field.name === '_leaseDays');
    if (generation.generation === '8') {
      expect(lease).toBeUndefined();
      return;
    }
    expect(lease).toMatchObject({ type: 'integer', minimum: 1, required: false });
  });

  it('refuses values that do not fit the form, naming each field, before any order reaches vRA', async () => {
    const fields = await formOf(generation.ids.centos.id);
    const cpu = fields.find((field) => /cpu/i.test(field.name) && field.type === 'integer')!;
    const before = submits().length;
    const answer: any = await harness.stack.gql<any>(orderDocument, {
      input: {
        catalogItemId: generation.ids.centos.id,
        values: [
          { name: cpu.name, value: 'two' },
          { name: 'no-such-field', value: 1 },
        ],
      },
    });
    expect(answer.data).toBeNull();
    const [error] = answer.errors;
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    const named = (error.extensions.fields as Array<{ name: string; message: string }>).map(
      (problem) => problem.name,
    );
    expect(named).toEqual(expect.arrayContaining([cpu.name, 'no-such-field']));
    // a required field left without a value is named too
    for (const field of fields.filter((f) => f.required && f.defaultValue === null)) {
      expect(named).toContain(field.name);
    }
    expect(error.message).toContain(cpu.name);
    expect(submits().length).toBe(before);
  });

  it('refuses a value out of the bounds the form gives, or outside its choices', async () => {
    const fields = await formOf(generation.ids.centos.id);
    const bounded = fields.find((field) => field.maximum !== null);
    const chosen = fields.find((field) => field.choices !== null);
    const values = [
      ...(bounded === undefined ? [] : [{ name: bounded.name, value: bounded.maximum! + 1 }]),
      ...(chosen === undefined ? [] : [{ name: chosen.name, value: 'not-a-choice' }]),
    ];
    if (generation.generation === '8') expect(values).toHaveLength(2);
    if (values.length === 0) return; // vRA 7's template gives neither bounds nor choices
    const before = submits().length;
    const answer: any = await harness.stack.gql<any>(orderDocument, {
      input: { catalogItemId: generation.ids.centos.id, values },
    });
    expect(answer.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(answer.errors[0].extensions.fields.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining(values.map((value) => value.name)),
    );
    expect(submits().length).toBe(before);
  });
});

describe("vRA 8's own refusal of an order's inputs", () => {
  let harness: GenerationStack;
  beforeAll(async () => {
    harness = await generations.find((g) => g.generation === '8')!.start();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('names each input vRA refused in extensions.fields, in a message a person can read', async () => {
    const centos = generations.find((g) => g.generation === '8')!.ids.centos;
    // `data` is sent as it is: vRA 8 itself judges it
    const answer: any = await harness.stack.gql<any>(orderDocument, {
      input: { catalogItemId: centos.id, data: { hostname: '', size: 'huge' } },
    });
    const [error] = answer.errors;
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.extensions.upstream.status).toBe(400);
    expect(error.extensions.fields).toEqual(
      expect.arrayContaining([
        { name: 'hostname', message: expect.stringMatching(/fewer than 1 characters/) },
        { name: 'size', message: expect.stringMatching(/must be one of/) },
      ]),
    );
    expect(error.message).toMatch(/^The catalog service \(vRA\) refused the request: hostname /);
    expect(error.message).not.toMatch(/Invalid (argument|inputs)/);
    expect(harness.vra.refusals().length).toBeGreaterThan(0);
  });
});
