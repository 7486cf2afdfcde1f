import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../helpers/stack.ts';
import {
  catalogCalls,
  catalogItemsPath,
  firstError,
  iaasProvider,
  providerListCalls,
  providersPath,
} from '../helpers/vra.ts';

let stack: Stack;
let seen: number;

/** Requests the vRA simulator received since the test began. */
const fresh = () => stack.vra.requests.slice(seen);
const freshCatalogCalls = () =>
  catalogCalls(stack.vra).filter((r) => stack.vra.requests.indexOf(r) >= seen);

// Per-request batching is what these tests check: no provider list shared across requests.
beforeAll(async () => {
  stack = await startStack({ env: { PROVIDER_CACHE_TTL_MS: '0' } });
});
afterAll(async () => {
  await stack.close();
});
beforeEach(() => {
  seen = stack.vra.requests.length;
});

const providersQuery = `query ($first: Int, $after: String) {
  providers(first: $first, after: $after) {
    totalCount
    edges { cursor node { id name providerTypeId } }
    nodes { id }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;

const itemsQuery = `query ($first: Int, $after: String) {
  catalogItems(first: $first, after: $after) {
    totalCount
    nodes { id name description iconId catalogItemTypeId outputResourceTypeId
            organization { tenantRef tenantLabel subtenantRef subtenantLabel } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;

describe('providers', () => {
  it('answers the first page mapped onto page=1&limit=first, with totalCount from metadata', async () => {
    const answer = await stack.gql<any>(providersQuery, { first: 2 });
    expect(answer.errors).toBeUndefined();
    const connection = answer.data?.providers;
    expect(connection.totalCount).toBe(stack.vra.providers.length);
    expect(connection.nodes.map((n: { id: string }) => n.id)).toEqual(
      stack.vra.providers.slice(0, 2).map((p) => p.id),
    );
    expect(connection.edges[0].node).toEqual({
      id: stack.vra.providers[0]!.id,
      name: stack.vra.providers[0]!.name,
      providerTypeId: stack.vra.providers[0]!.providerTypeId,
    });
    expect(connection.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(connection.pageInfo.startCursor).toBe(connection.edges[0].cursor);
    expect(connection.pageInfo.endCursor).toBe(connection.edges[1].cursor);
    const calls = providerListCalls(stack.vra).slice(-1);
    expect(calls[0]?.query.get('page')).toBe('1');
    expect(calls[0]?.query.get('limit')).toBe('2');
    expect(calls[0]?.headers.accept).toBe('application/json');
    expect(calls[0]?.headers.authorization).toMatch(/^Bearer \S+$/);
  });

  it('gives exactly first items after a cursor whose offset is not a multiple of first, from one page', async () => {
    const start = await stack.gql<any>(providersQuery, { first: 3 });
    const after = start.data?.providers.edges[2].cursor; // position 2: the window is [3, 5)
    seen = stack.vra.requests.length;
    const answer = await stack.gql<any>(providersQuery, { first: 2, after });
    expect(answer.data?.providers.nodes.map((n: { id: string }) => n.id)).toEqual(
      stack.vra.providers.slice(3, 5).map((p) => p.id),
    );
    expect(answer.data?.providers.pageInfo).toMatchObject({
      hasNextPage: true,
      hasPreviousPage: true,
    });
    const calls = fresh();
    expect(calls).toHaveLength(1);
    // limit 3: page 2 = [3, 6) holds the whole window.
    expect(calls[0]?.query.get('page')).toBe('2');
    expect(calls[0]?.query.get('limit')).toBe('3');
  });

  it('ends with hasNextPage false on the last page', async () => {
    const start = await stack.gql<any>(providersQuery, { first: 4 });
    const answer = await stack.gql<any>(providersQuery, {
      first: 4,
      after: start.data?.providers.pageInfo.endCursor,
    });
    expect(answer.data?.providers.nodes).toHaveLength(stack.vra.providers.length - 4);
    expect(answer.data?.providers.pageInfo.hasNextPage).toBe(false);
  });

  it.each([0, 5001, -3])('refuses first = %i with BAD_USER_INPUT and no call', async (first) => {
    const answer = await stack.gql<any>(providersQuery, { first });
    expect(firstError(answer).extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(answer.data?.providers).toBeNull();
    expect(fresh()).toHaveLength(0);
  });

  it('accepts first = 5000', async () => {
    const answer = await stack.gql<any>(providersQuery, { first: 5000 });
    expect(answer.errors).toBeUndefined();
    expect(fresh().at(-1)?.query.get('limit')).toBe('5000');
  });

  it.each(['garbage', 'cHJvdmlkZXJzOi0x', ''])(
    'refuses the malformed cursor %j with BAD_USER_INPUT and no call',
    async (after) => {
      const answer = await stack.gql<any>(providersQuery, { first: 2, after });
      expect(firstError(answer).extensions?.['code']).toBe('BAD_USER_INPUT');
      expect(fresh()).toHaveLength(0);
    },
  );

  it('refuses a catalogItems cursor', async () => {
    const items = await stack.gql<any>(itemsQuery, { first: 1 });
    seen = stack.vra.requests.length;
    const answer = await stack.gql<any>(providersQuery, {
      first: 2,
      after: items.data?.catalogItems.pageInfo.endCursor,
    });
    expect(firstError(answer).extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(fresh()).toHaveLength(0);
  });
});

describe('provider and providerByName', () => {
  const byId = 'query ($id: ID!) { provider(id: $id) { id name providerTypeId } }';
  const byName =
    'query ($name: String!) { providerByName(name: $name) { id name providerTypeId } }';

  it('answers a provider by id from GET /providers/{id}', async () => {
    const iaas = iaasProvider(stack.vra);
    const answer = await stack.gql<any>(byId, { id: iaas.id });
    expect(answer.data?.provider).toEqual({
      id: iaas.id,
      name: 'iaas-service',
      providerTypeId: iaas.providerTypeId,
    });
    expect(fresh().map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${providersPath}/${iaas.id}`,
    ]);
  });

  it('answers null, with no error, for an id vRA does not know', async () => {
    const answer = await stack.gql<any>(byId, { id: '00000000-0000-4000-8000-0000000000ff' });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.provider).toBeNull();
  });

  it('refuses an id that is not a UUID before any call', async () => {
    const answer = await stack.gql<any>(byId, { id: '../catalogItems' });
    expect(firstError(answer).extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(fresh()).toHaveLength(0);
  });

  it('finds a provider by exact name, apostrophe included', async () => {
    const answer = await stack.gql<any>(byName, { name: "Ops Team's XaaS" });
    expect(answer.data?.providerByName.name).toBe("Ops Team's XaaS");
    expect(providerListCalls(stack.vra).at(-1)?.query.get('limit')).toBe('5000');
  });

  it('answers null when no provider has the name', async () => {
    const answer = await stack.gql<any>(byName, { name: 'IAAS-SERVICE' });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.providerByName).toBeNull();
  });

  it('refuses an empty name before any call', async () => {
    const answer = await stack.gql<any>(byName, { name: ' ' });
    expect(firstError(answer).extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(fresh()).toHaveLength(0);
  });
});

describe('catalogItems', () => {
  it('maps the vRA item fields', async () => {
    const answer = await stack.gql<any>(itemsQuery, { first: 3 });
    const wire = stack.vra.catalogItems[2]!;
    expect(answer.data?.catalogItems.nodes[2]).toEqual({
      id: wire.id,
      name: wire.name,
      description: wire.description,
      iconId: wire.iconId,
      catalogItemTypeId: wire.catalogItemTypeRef.id,
      outputResourceTypeId: wire.outputResourceTypeRef.id,
      organization: wire.organization,
    });
    expect(answer.data?.catalogItems.totalCount).toBe(stack.vra.catalogItems.length);
  });

  it('walks every item exactly once, in order, with first = 7', async () => {
    const ids: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const answer = await stack.gql<any>(itemsQuery, { first: 7, after });
      const connection: {
        nodes: Array<{ id: string }>;
        pageInfo: { hasNextPage: boolean; endCursor: string };
      } = answer.data?.catalogItems;
      ids.push(...connection.nodes.map((n: { id: string }) => n.id));
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(ids).toEqual(stack.vra.catalogItems.map((i) => i.id));
    const pages = fresh().filter((r) => r.path === catalogItemsPath);
    expect(pages.map((r) => `${r.query.get('page')}/${r.query.get('limit')}`)).toEqual(
      Array.from({ length: Math.ceil(stack.vra.catalogItems.length / 7) }, (_, i) => `${i + 1}/7`),
    );
  });

  it('resolves every item provider with exactly one provider call', async () => {
    const answer = await stack.gql<any>(
      '{ catalogItems(first: 100) { nodes { provider { id name } } } }',
    );
    expect(answer.errors).toBeUndefined();
    const nodes = answer.data?.catalogItems.nodes as Array<{
      provider: { id: string; name: string };
    }>;
    expect(nodes).toHaveLength(stack.vra.catalogItems.length);
    expect(nodes.map((n) => n.provider.name)).toEqual(
      stack.vra.catalogItems.map((i) => i.providerBinding.providerRef.label),
    );
    expect(new Set(nodes.map((n) => n.provider.id)).size).toBeGreaterThanOrEqual(3);
    const calls = freshCatalogCalls();
    expect(calls.map((r) => `${r.path}?${r.query.toString()}`)).toEqual([
      `${catalogItemsPath}?page=1&limit=100`,
      `${providersPath}?page=1&limit=5000`,
    ]);
  });

  it('shares that one provider call with providerByName in the same request', async () => {
    const answer = await stack.gql<any>(`{
      iaas: providerByName(name: "iaas-service") { id }
      blueprints: providerByName(name: "Blueprint Service") { id }
      catalogItems(first: 50) { nodes { provider { providerTypeId } } }
    }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.iaas.id).toBe(iaasProvider(stack.vra).id);
    expect(fresh().filter((r) => r.path.startsWith(providersPath))).toHaveLength(1);
  });

  it('answers a null provider for an item whose provider vRA no longer lists', async () => {
    const local = await startStack();
    try {
      const orphan = structuredClone(local.vra.catalogItems[0]!);
      orphan.id = 'deadbeef-0000-4000-8000-000000000001';
      orphan.providerBinding.providerRef.id = 'deadbeef-0000-4000-8000-0000000000ff';
      local.vra.catalogItems.unshift(orphan);
      const answer = await local.gql<any>(
        '{ catalogItems(first: 2) { nodes { id provider { name } } } }',
      );
      expect(answer.errors).toBeUndefined();
      expect(answer.data?.catalogItems.nodes[0]).toEqual({ id: orphan.id, provider: null });
      expect(answer.data?.catalogItems.nodes[1].provider.name).toBe('iaas-service');
    } finally {
      await local.close();
    }
  });
});
