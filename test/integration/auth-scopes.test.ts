import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildASTSchema,
  getNamedType,
  getNullableType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type ObjectTypeDefinitionNode,
  type ObjectTypeExtensionNode,
  parse,
  print,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { loadTypeDefs } from '../../src/server.ts';
import { type Stack, startStack, upstreamCalls } from '../helpers/stack.ts';

/** The token file: what each token may do. */
const tokens = {
  reader: { token: 'reader-token-0123456789abcdef', scopes: ['read'] },
  networker: { token: 'networker-token-0123456789abcd', scopes: ['read', 'network:write'] },
  cataloguer: { token: 'cataloguer-token-0123456789ab', scopes: ['read', 'catalog:admin'] },
  nobody: { token: 'nobody-token-0123456789abcdef', scopes: [] },
} as const;

type TokenName = keyof typeof tokens;

const bearer = (name: TokenName) => ({ authorization: `Bearer ${tokens[name].token}` });

/** Root fields anyone may run, credential or not. */
const openFields = new Set(['signIn', 'signOut', 'viewer']);

/** The scope each mutation requires, as the contract states it. */
const mutationScopes: Record<string, string> = {
  runWorkflow: 'workflow:run',
  cancelWorkflowExecution: 'workflow:run',
  requestCatalogItem: 'catalog:request',
  requestResourceAction: 'catalog:request',
  registerCatalogItem: 'catalog:admin',
  publishBlueprint: 'catalog:admin',
  importPackage: 'package:import',
  createIpSet: 'network:write',
  updateIpSet: 'network:write',
  deleteIpSet: 'network:write',
  createService: 'network:write',
  updateService: 'network:write',
  deleteService: 'network:write',
  addVirtualServer: 'network:write',
  updateVirtualServer: 'network:write',
  deleteVirtualServer: 'network:write',
  forceSyncEdge: 'network:write',
  updateApplicationFirewall: 'network:write',
  addApplicationFirewallRule: 'network:write',
  removeApplicationFirewallRule: 'network:write',
  addFirewallSectionRule: 'network:write',
  removeFirewallSectionRule: 'network:write',
};

const schema = buildASTSchema(parse(loadTypeDefs().join('\n')));
const mutationType = schema.getMutationType();
if (mutationType === null || mutationType === undefined) throw new Error('no Mutation type');
const mutationFields = Object.values(mutationType.getFields());
const guardedMutations = mutationFields.filter((field) => !openFields.has(field.name));

/** A value the type accepts: every required field filled, nothing optional. */
function sample(type: GraphQLInputType): unknown {
  const inner = getNullableType(type);
  if (isListType(inner)) return [sample(inner.ofType)];
  if (isInputObjectType(inner)) {
    return Object.fromEntries(
      Object.values(inner.getFields())
        .filter((f) => isNonNullType(f.type) && f.defaultValue === undefined)
        .map((f) => [f.name, sample(f.type)]),
    );
  }
  if (isEnumType(inner)) return inner.getValues()[0]?.value;
  if (isScalarType(inner)) {
    switch (inner.name) {
      case 'Int':
      case 'Float':
        return 1;
      case 'Boolean':
        return false;
      case 'JSON':
        return {};
      case 'DateTime':
        return '2026-01-01T00:00:00.000Z';
      default:
        return 'x-1';
    }
  }
  throw new Error(`no sample for ${String(type)}`);
}

const required = (arg: GraphQLArgument) =>
  isNonNullType(arg.type) && arg.defaultValue === undefined;
const isFile = (arg: GraphQLArgument) => getNamedType(arg.type).name === 'File';

/** `mutation($a: T!) { field(a: $a) { __typename } }`, with variables for its required arguments. */
function mutationOf(field: GraphQLField<unknown, unknown>): {
  query: string;
  variables: Record<string, unknown>;
  files: string[];
} {
  const args = field.args.filter(required);
  const declared = args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const passed = args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const selection = isObjectType(getNamedType(field.type)) ? ' { __typename }' : '';
  return {
    query: `mutation Guarded${args.length > 0 ? `(${declared})` : ''} { ${field.name}${
      args.length > 0 ? `(${passed})` : ''
    }${selection} }`,
    variables: Object.fromEntries(args.map((a) => [a.name, isFile(a) ? null : sample(a.type)])),
    files: args.filter(isFile).map((a) => a.name),
  };
}

let dir: string;
let stack: Stack;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'auth-scopes-'));
  const file = join(dir, 'tokens.json');
  writeFileSync(
    file,
    JSON.stringify(Object.entries(tokens).map(([name, t]) => ({ name, ...t }))),
    'utf8',
  );
  stack = await startStack({ env: { GATEWAY_TOKENS_FILE: file } });
});
afterAll(async () => {
  await stack.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends a mutation as JSON, or as a GraphQL multipart request when it takes a file. */
async function send(
  operation: ReturnType<typeof mutationOf>,
  headers: Record<string, string>,
): Promise<{ status: number; body: { data?: any; errors?: any[] | undefined } }> {
  if (operation.files.length === 0) {
    const answer = await stack.gql(operation.query, operation.variables, headers);
    return { status: answer.status, body: { data: answer.data, errors: answer.errors } };
  }
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({ query: operation.query, variables: operation.variables }),
  );
  form.append(
    'map',
    JSON.stringify(
      Object.fromEntries(operation.files.map((name, i) => [i, [`variables.${name}`]])),
    ),
  );
  operation.files.forEach((_, i) => {
    form.append(String(i), new File([new Uint8Array([80, 75, 3, 4])], 'a.package'));
  });
  const response = await stack.fetch('/graphql', {
    method: 'POST',
    headers: { accept: 'application/json', ...headers },
    body: form,
  });
  return { status: response.status, body: await response.json() };
}

describe('scopes of gateway tokens from GATEWAY_TOKENS_FILE', () => {
  it('lists every mutation field of the schema in the table of required scopes', () => {
    expect(guardedMutations.map((f) => f.name).sort()).toEqual(Object.keys(mutationScopes).sort());
  });

  it.each(guardedMutations.map((field) => [field.name, field] as const))(
    'refuses %s to a read-only token with FORBIDDEN naming its scope, calls no upstream and audits one denied event',
    async (name, field) => {
      const scope = mutationScopes[name];
      const callsBefore = upstreamCalls(stack);
      const auditBefore = stack.audit.length;

      const { status, body } = await send(mutationOf(field), bearer('reader'));

      expect(status).toBe(200);
      expect(body.errors).toHaveLength(1);
      expect(body.errors?.[0].path).toEqual([name]);
      expect(body.errors?.[0].extensions.code).toBe('FORBIDDEN');
      expect(body.errors?.[0].message).toContain(`"${scope}"`);
      expect(body.errors?.[0].message).toContain(name);
      expect(body.errors?.[0].extensions.requiredScopes).toEqual([scope]);
      expect(upstreamCalls(stack)).toBe(callsBefore);
      const events = stack.audit.slice(auditBefore);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        field: name,
        decision: 'denied',
        outcome: 'FORBIDDEN',
        actor: { name: 'reader', via: 'token' },
        upstream: [],
      });
    },
  );

  it('runs a query for the read-only token, and shows it as the viewer with its one scope', async () => {
    const before = stack.vro.requests.length;
    const answer = await stack.gql(
      '{ workflows(first: 1) { totalCount } viewer { name via tenant scopes expiresAt } }',
      {},
      bearer('reader'),
    );
    expect(answer.status).toBe(200);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      workflows: { totalCount: 61 },
      viewer: { name: 'reader', via: 'TOKEN', tenant: null, scopes: ['read'], expiresAt: null },
    });
    expect(stack.vro.requests.length).toBe(before + 1);
  });

  it('runs publishBlueprint for the catalog:admin token, and refuses it createIpSet', async () => {
    const vraBefore = stack.vra.requests.length;
    const auditBefore = stack.audit.length;
    const published = await stack.gql(
      `mutation ($input: PublishBlueprintInput!) {
        publishBlueprint(input: $input) { catalogItem { id name } }
      }`,
      {
        input: {
          virtualMachineTemplateId: 'b1d0aaaa-0000-4000-8000-00000000abcd',
          name: 'CentOS 9 Stream',
          description: 'Minimal image',
          iconId: 'centos.png',
          catalogItemTypeId: 'com.vmware.csp.iaas.blueprint.service.machine',
          outputResourceTypeId: 'Infrastructure.Virtual',
          organization: { tenantRef: 'vsphere.local', tenantLabel: 'vsphere.local' },
        },
      },
      bearer('cataloguer'),
    );
    expect(published.errors).toBeUndefined();
    expect(published.data).toEqual({
      publishBlueprint: {
        // vRA's id of the registered item (the simulator's registeredId), not the binding id.
        catalogItem: { id: expect.any(String), name: 'CentOS 9 Stream' },
      },
    });
    expect(
      stack.vra.requests
        .slice(vraBefore)
        .filter((r) => r.method === 'PUT')
        .map((r) => r.path),
    ).toEqual([expect.stringMatching(/\/catalogItems\/b1d0aaaa-0000-4000-8000-00000000abcd$/)]);
    expect(stack.audit.slice(auditBefore)).toMatchObject([
      {
        field: 'publishBlueprint',
        stage: 'started',
        decision: 'allowed',
        actor: { name: 'cataloguer', via: 'token' },
      },
      {
        field: 'publishBlueprint',
        stage: 'completed',
        decision: 'allowed',
        outcome: 'ok',
        actor: { name: 'cataloguer', via: 'token' },
      },
    ]);

    const nsxBefore = stack.nsx.requests.length;
    const create = await stack.gql(
      'mutation { createIpSet(input: { name: "x", addresses: ["10.0.0.1"] }) { id } }',
      {},
      bearer('cataloguer'),
    );
    expect(create.errors?.map((e) => e.extensions?.['code'])).toEqual(['FORBIDDEN']);
    expect(create.errors?.[0]?.message).toContain('"network:write"');
    expect(stack.nsx.requests.length).toBe(nsxBefore);
  });

  it('refuses every query field to a token with no scope at all, while viewer still answers', async () => {
    const before = upstreamCalls(stack);
    const answer = await stack.gql(
      '{ workflows(first: 1) { totalCount } ipSets { id } viewer { name via scopes } }',
      {},
      bearer('nobody'),
    );
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({
      workflows: null,
      ipSets: null,
      viewer: { name: 'nobody', via: 'TOKEN', scopes: [] },
    });
    const errors = [...(answer.errors ?? [])].sort((a, b) =>
      String(a.path?.[0]).localeCompare(String(b.path?.[0])),
    );
    expect(errors.map((e) => [e.path, e.extensions?.['code']])).toEqual([
      [['ipSets'], 'FORBIDDEN'],
      [['workflows'], 'FORBIDDEN'],
    ]);
    for (const error of errors) {
      expect(error.message).toContain('"read"');
      expect(error.extensions?.['requiredScopes']).toEqual(['read']);
    }
    expect(upstreamCalls(stack)).toBe(before);
  });

  const allowedField = (name: string) =>
    `createIpSet(input: { name: "${name}", addresses: ["10.9.0.1"] }) { id name }`;
  const forbiddenField = 'runWorkflow(workflowId: "any-workflow") { execution { id } }';
  it.each([
    ['the allowed one first', 'scopes-allowed-first', ['createIpSet', 'runWorkflow']],
    ['the forbidden one first', 'scopes-forbidden-first', ['runWorkflow', 'createIpSet']],
  ])(
    'runs no field of a mutation one of whose fields is forbidden, naming that field and its scope (%s)',
    async (_, ipSetName, order) => {
      const fields = order.map((field) =>
        field === 'createIpSet' ? allowedField(ipSetName) : forbiddenField,
      );
      const before = upstreamCalls(stack);
      const auditBefore = stack.audit.length;
      const answer = await stack.gql(
        `mutation Both { ${fields.join(' ')} }`,
        {},
        bearer('networker'),
      );
      expect(answer.status).toBe(200);
      // Mutation results cannot be null: a field that had run would lose its answer.
      expect(answer.data).toBeNull();
      expect(answer.errors?.map((e) => e.extensions?.['code'])).toEqual(['FORBIDDEN']);
      expect(answer.errors?.[0]?.message).toContain(
        'runWorkflow requires the scope "workflow:run"',
      );
      expect(answer.errors?.[0]?.message).not.toContain('createIpSet');
      expect(answer.errors?.[0]?.extensions?.['requiredScopes']).toEqual(['workflow:run']);
      expect(upstreamCalls(stack)).toBe(before);
      expect(stack.audit.slice(auditBefore).map((e) => [e.field, e.decision, e.outcome])).toEqual(
        order.map((field) => [field, 'denied', 'FORBIDDEN']),
      );
    },
  );
});

describe('a request without a credential where tokens are configured', () => {
  it('is refused with 401 for a query, and calls no upstream', async () => {
    const before = upstreamCalls(stack);
    const answer = await stack.gql('{ workflows(first: 1) { totalCount } }');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(answer.errors?.map((e) => e.extensions?.['code'])).toEqual(['UNAUTHENTICATED']);
    expect(upstreamCalls(stack)).toBe(before);
  });

  it('may sign in: wrong credentials reach vRA and answer a GraphQL UNAUTHENTICATED error, not a 401', async () => {
    const before = stack.vra.requests.length;
    const answer = await stack.gql(
      'mutation { signIn(username: "nobody@vsphere.local", password: "wrong") { name } }',
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('www-authenticate')).toBeNull();
    expect(answer.data).toBeNull();
    expect(answer.errors?.map((e) => [e.path, e.extensions?.['code']])).toEqual([
      [['signIn'], 'UNAUTHENTICATED'],
    ]);
    const sent = stack.vra.requests.slice(before);
    expect(sent.map((r) => [r.method, r.path])).toEqual([['POST', '/identity/api/tokens']]);
  });

  it('may ask who it is: viewer is null', async () => {
    const before = upstreamCalls(stack);
    const answer = await stack.gql('{ viewer { name } }');
    expect(answer.status).toBe(200);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ viewer: null });
    expect(upstreamCalls(stack)).toBe(before);
  });
});

describe('GATEWAY_TOKENS_FILE at start-up', () => {
  it('stops loadConfig with a ConfigError naming GATEWAY_TOKENS_FILE when a token names an unknown scope', () => {
    const file = join(dir, 'unknown-scope.json');
    writeFileSync(
      file,
      JSON.stringify([
        { name: 'ops', token: 'ops-token-0123456789abcdef', scopes: ['read', 'admin'] },
      ]),
    );
    let thrown: unknown;
    try {
      loadConfig({ GATEWAY_TOKENS_FILE: file });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variable).toBe('GATEWAY_TOKENS_FILE');
    expect((thrown as ConfigError).message).toMatch(/^GATEWAY_TOKENS_FILE .*admin/);
  });

  it('does not leave the gateway open when the file lists no token: start-up stops, or a request without a credential gets 401', async () => {
    const file = join(dir, 'no-tokens.json');
    writeFileSync(file, '[]');
    try {
      loadConfig({ GATEWAY_TOKENS_FILE: file });
    } catch (error) {
      // Refusing to start is one right answer.
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe('GATEWAY_TOKENS_FILE');
      return;
    }
    const empty = await startStack({ env: { GATEWAY_TOKENS_FILE: file } });
    try {
      const answer = await empty.gql('{ workflows(first: 1) { totalCount } }');
      expect(answer.status).toBe(401);
      expect(upstreamCalls(empty)).toBe(0);
    } finally {
      await empty.close();
    }
  });
});

describe('the SDL', () => {
  const schemaDir = new URL('../../schema/', import.meta.url);
  const rootFields = readdirSync(schemaDir)
    .filter((name) => name.endsWith('.graphql'))
    .flatMap((name) =>
      parse(readFileSync(new URL(name, schemaDir), 'utf8'))
        .definitions.filter(
          (d): d is ObjectTypeDefinitionNode | ObjectTypeExtensionNode =>
            (d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION) &&
            ['Query', 'Mutation', 'Subscription'].includes(d.name.value),
        )
        .flatMap((d) =>
          (d.fields ?? []).map((field) => ({ name: `${d.name.value}.${field.name.value}`, field })),
        ),
    );

  it('finds the root fields of every schema file', () => {
    expect(rootFields.length).toBe(
      Object.keys(schema.getQueryType()!.getFields()).length +
        mutationFields.length +
        Object.keys(schema.getSubscriptionType()!.getFields()).length,
    );
  });

  it.each(
    rootFields
      .filter(({ field }) => !openFields.has(field.name.value))
      .map(({ name, field }) => [name, field] as const),
  )('declares @requiresScopes on %s and names its scope in the description', (name, field) => {
    const directives = (field.directives ?? []).filter((d) => d.name.value === 'requiresScopes');
    expect(directives).toHaveLength(1);
    const scopes = directives[0]!.arguments?.find((a) => a.name.value === 'scopes');
    expect(scopes?.value.kind).toBe(Kind.LIST);
    const named = [...print(scopes!.value).matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    const fieldName = field.name.value;
    const expected = name.startsWith('Mutation.') ? [mutationScopes[fieldName]] : ['read'];
    expect(named).toEqual(expected);
    const description = field.description?.value ?? '';
    expect(description).toMatch(new RegExp(`Requires the scope \`${expected[0]}\``));
  });

  it.each([...openFields])('declares no scope on %s and says it requires none', (open) => {
    const found = rootFields.filter(({ field }) => field.name.value === open);
    expect(found).toHaveLength(1);
    expect(found[0]!.field.directives ?? []).toEqual([]);
    expect(found[0]!.field.description?.value).toMatch(/Requires no scope\./);
  });
});
