import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

const requestComponent = '6e04a460-4a45-4e16-9603-db2922c24462';
const createSnapshot = 'BD80808080808080808080808080808020C280800122528313869552e41805bb1';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ vro: { manualClock: true } });
});
afterAll(async () => {
  await stack.close();
});

/** Runs `action` and answers what the vRO simulator received meanwhile. */
async function received<T>(action: () => Promise<T>): Promise<[T, RecordedRequest[]]> {
  const mark = stack.vro.requests.length;
  const result = await action();
  return [result, stack.vro.requests.slice(mark)];
}

const basic = () =>
  `Basic ${Buffer.from(`${stack.vro.username}:${stack.vro.password}`).toString('base64')}`;

const page = `
  query Page($filter: WorkflowFilter, $first: Int, $after: String) {
    workflows(filter: $filter, first: $first, after: $after) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id name } }
      nodes { name categoryName canExecute canEdit customIcon type version href description }
    }
  }`;

describe('workflows', () => {
  it('sends the typed filter as the exact conditions string, with maxResult and startIndex', async () => {
    const [answer, sent] = await received(() =>
      stack.gql<any>(page, {
        filter: { nameContains: 'snapshot', categoryName: 'Snapshot' },
        first: 3,
      }),
    );
    expect(answer.errors).toBeUndefined();
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/vco/api/workflows');
    expect(Object.fromEntries(request?.query ?? [])).toEqual({
      conditions: 'name~snapshot,categoryName=Snapshot',
      maxResult: '3',
      startIndex: '0',
    });
    expect(request?.headers.authorization).toBe(basic());
    expect(request?.headers.accept).toBe('application/json');
    const connection = answer.data?.workflows;
    expect(connection.totalCount).toBe(7);
    expect(connection.nodes.map((node: { name: string }) => node.name)).toEqual([
      'Create a snapshot',
      'Remove all snapshots',
      'Remove excess snapshots',
    ]);
    expect(connection.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(connection.pageInfo.startCursor).toBe(connection.edges[0].cursor);
    expect(connection.pageInfo.endCursor).toBe(connection.edges[2].cursor);
  });

  it('walks every page with the cursors until hasNextPage is false', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    const startIndexes: string[] = [];
    for (;;) {
      const [answer, sent] = await received(() =>
        stack.gql<any>(page, { filter: { categoryName: 'snapshot' }, first: 3, after }),
      );
      startIndexes.push(sent[0]?.query.get('startIndex') ?? '');
      const connection = answer.data?.workflows;
      seen.push(...connection.edges.map((edge: { node: { name: string } }) => edge.node.name));
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(startIndexes).toEqual(['0', '3', '6']);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
  });

  it('goes on after a cursor of the previous release (base64 offset:N) and answers cursors of the current form', async () => {
    const [answer, sent] = await received(() =>
      stack.gql<any>(page, {
        filter: { categoryName: 'snapshot' },
        first: 3,
        after: Buffer.from('offset:2').toString('base64'),
      }),
    );
    expect(answer.errors).toBeUndefined();
    expect(sent[0]?.query.get('startIndex')).toBe('3');
    const connection = answer.data?.workflows;
    expect(connection.edges.map((edge: { cursor: string }) => edge.cursor)).toEqual(
      [3, 4, 5].map((n) => Buffer.from(`workflows:${n}`).toString('base64url')),
    );
  });

  it('sends name= and version= for the exact filters', async () => {
    const [answer, sent] = await received(() =>
      stack.gql<any>(page, { filter: { name: 'Request Component', version: '0.0.33' } }),
    );
    expect(sent[0]?.query.get('conditions')).toBe('name=Request Component,version=0.0.33');
    expect(sent[0]?.query.get('maxResult')).toBe('50');
    expect(answer.data?.workflows.nodes).toEqual([
      {
        name: 'Request Component',
        categoryName: 'vCAC',
        canExecute: true,
        canEdit: true,
        customIcon: false,
        type: 'Workflow',
        version: '0.0.33',
        href: `${stack.vro.url.href}/workflows/${requestComponent}/`,
        description: null,
      },
    ]);
  });

  it('sends no conditions without a filter and turns the string booleans into booleans', async () => {
    const [answer, sent] = await received(() => stack.gql<any>(page, { first: 1000 }));
    expect(sent[0]?.query.has('conditions')).toBe(false);
    const nodes: any[] = answer.data?.workflows.nodes;
    expect(nodes.length).toBeGreaterThanOrEqual(50);
    expect(nodes.find((node) => node.name === 'Create a snapshot')).toMatchObject({
      canEdit: false,
      customIcon: false,
    });
    expect(nodes.find((node) => node.name === 'Provision Linux VM')).toMatchObject({
      canEdit: true,
      customIcon: true,
    });
    expect(answer.data?.workflows.pageInfo.hasNextPage).toBe(false);
  });

  it.each([
    ['a comma in a filter value', { filter: { name: 'a,b' } }, 'filter.name'],
    ['an empty filter value', { filter: { categoryName: '' } }, 'filter.categoryName'],
    ['first 0', { first: 0 }, 'first'],
    ['first over 1000', { first: 1001 }, 'first'],
    ['a malformed after', { after: 'not-a-cursor' }, 'after'],
  ])('refuses %s with BAD_USER_INPUT and calls nothing', async (_case, variables, argument) => {
    const [answer, sent] = await received(() => stack.gql<any>(page, variables));
    expect(sent).toHaveLength(0);
    expect(answer.data?.workflows).toBeNull();
    expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
  });

  it('fetches parameters only when selected, one detail GET per workflow per request', async () => {
    const [plain, plainSent] = await received(() =>
      stack.gql<any>(
        '{ workflows(filter: { categoryName: "Snapshot" }, first: 2) { nodes { id name } } }',
      ),
    );
    expect(plain.errors).toBeUndefined();
    expect(plainSent).toHaveLength(1);
    const [answer, sent] = await received(() =>
      stack.gql<any>(`{
        workflows(filter: { categoryName: "Snapshot" }, first: 2) {
          nodes { id inputParameters { name type description } outputParameters { name type } }
        }
        again: workflow(id: "${createSnapshot}") { inputParameters { name } }
      }`),
    );
    expect(answer.errors).toBeUndefined();
    const details = sent.filter((request) => request.path.startsWith('/vco/api/workflows/'));
    expect(details.map((request) => request.rawPath).sort()).toEqual(
      [
        `/vco/api/workflows/${createSnapshot}/`,
        '/vco/api/workflows/BD80808080808080808080808080808023C280800122528313869552e41805bb1/',
      ].sort(),
    );
    const first = answer.data?.workflows.nodes[0];
    expect(first.inputParameters[0]).toEqual({
      name: 'vm',
      type: 'VC:VirtualMachine',
      description: 'Virtual machine',
    });
    expect(first.outputParameters).toEqual([
      { name: 'snapshot', type: 'VC:VirtualMachineSnapshot' },
    ]);
  });
});

describe('workflow(id)', () => {
  it('reads the detail once and answers its fields', async () => {
    const [answer, sent] = await received(() =>
      stack.gql<any>(`{ workflow(id: "${requestComponent}") {
        id name version href customIcon description
        inputParameters { name type description }
        outputParameters { name type description }
      } }`),
    );
    expect(answer.errors).toBeUndefined();
    expect(sent.map((request) => request.rawPath)).toEqual([
      `/vco/api/workflows/${requestComponent}/`,
    ]);
    const workflow = answer.data?.workflow;
    expect(workflow).toMatchObject({
      id: requestComponent,
      name: 'Request Component',
      version: '0.0.33',
      customIcon: false,
    });
    expect(workflow.inputParameters).toHaveLength(13);
    expect(workflow.outputParameters[0]).toEqual({
      name: 'result',
      type: 'string',
      description: 'Catalog item request state',
    });
  });

  it('resolves the fields the detail lacks with one conditions=id= lookup', async () => {
    const [answer, sent] = await received(() =>
      stack.gql<any>(
        `{ workflow(id: "${createSnapshot}") { name categoryName categoryHref type canExecute canEdit } }`,
      ),
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.workflow).toMatchObject({
      name: 'Create a snapshot',
      categoryName: 'Snapshot',
      type: 'Workflow',
      canExecute: true,
      canEdit: false,
    });
    expect(answer.data?.workflow.categoryHref).toMatch(
      /\/catalog\/System\/WorkflowCategory\/[0-9a-f]{32}\/$/,
    );
    expect(sent.map((request) => [request.path, request.query.get('conditions')])).toEqual([
      [`/vco/api/workflows/${createSnapshot}/`, null],
      ['/vco/api/workflows', `id=${createSnapshot}`],
    ]);
  });

  it('answers null, without an error, for a workflow vRO does not know', async () => {
    const [answer, sent] = await received(() =>
      stack.gql<any>('{ workflow(id: "00000000-0000-4000-8000-000000000000") { id name } }'),
    );
    expect(answer).toMatchObject({ data: { workflow: null } });
    expect(answer.errors).toBeUndefined();
    expect(sent).toHaveLength(1);
  });

  it('accepts the long ids of built-in workflows and percent-encodes ids in paths', async () => {
    stack.vro.putWorkflow({
      id: 'vco:custom.workflow',
      name: 'Custom with a colon id',
      version: '1.0.0',
      category: 'Testing',
      inputs: [],
      outputs: [],
    });
    const [answer, sent] = await received(() =>
      stack.gql<any>(`{
        library: workflow(id: "com.vmware.library.vc.vm.cloneVM") { name }
        colon: workflow(id: "vco:custom.workflow") { name }
      }`),
    );
    expect(answer.data).toEqual({
      library: { name: 'Clone virtual machine from properties' },
      colon: { name: 'Custom with a colon id' },
    });
    expect(sent.map((request) => request.rawPath).sort()).toEqual([
      '/vco/api/workflows/com.vmware.library.vc.vm.cloneVM/',
      '/vco/api/workflows/vco%3Acustom.workflow/',
    ]);
  });

  it.each(['a/b', '../about', 'a b', 'x?y=1', 'a,b', '', '%2F', 'é'])(
    'refuses the id %j with BAD_USER_INPUT before any call, leaving the other fields standing',
    async (id) => {
      const [answer, sent] = await received(() =>
        stack.gql<any>(
          'query($id: ID!) { bad: workflow(id: $id) { id } good: workflow(id: "3eabedcb-baa8-4dd4-88bd-64072bcfbe01") { name } }',
          { id },
        ),
      );
      expect(sent.map((request) => request.rawPath)).toEqual([
        '/vco/api/workflows/3eabedcb-baa8-4dd4-88bd-64072bcfbe01/',
      ]);
      expect(answer.data).toEqual({ bad: null, good: { name: 'No-op' } });
      expect(answer.errors?.[0]).toMatchObject({
        path: ['bad'],
        extensions: { code: 'BAD_USER_INPUT' },
      });
    },
  );
});

describe('vRO failures', () => {
  const query = `{ workflows(first: 1) { totalCount } }`;

  it('maps a 500 with a JSON message to UPSTREAM_ERROR with the message and no code', async () => {
    stack.vro.faults.inject({
      fault: {
        kind: 'status',
        status: 500,
        body: { status: '500', message: 'Internal error: database unavailable' },
      },
    });
    try {
      const answer = await stack.gql<any>(query);
      expect(answer.data?.workflows).toBeNull();
      expect(answer.errors?.[0]?.extensions).toEqual({
        code: 'UPSTREAM_ERROR',
        upstream: {
          service: 'vro',
          status: 500,
          code: null,
          message: 'Internal error: database unavailable',
        },
      });
    } finally {
      stack.vro.faults.clear();
    }
  });

  it('takes at most 200 characters of a text error body', async () => {
    stack.vro.faults.inject({
      fault: {
        kind: 'status',
        status: 503,
        body: `<html>${'z'.repeat(5000)}</html>`,
        contentType: 'text/html',
      },
    });
    try {
      const answer = await stack.gql<any>(query);
      const extensions = answer.errors?.[0]?.extensions as any;
      expect(extensions.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(extensions.upstream.status).toBe(503);
      expect(JSON.stringify(answer).length).toBeLessThan(1500);
    } finally {
      stack.vro.faults.clear();
    }
  });

  it('answers UPSTREAM_BAD_RESPONSE for malformed JSON', async () => {
    stack.vro.faults.inject({ fault: { kind: 'malformed' } });
    try {
      const answer = await stack.gql<any>(query);
      expect(answer.data?.workflows).toBeNull();
      expect(answer.errors?.[0]?.extensions).toMatchObject({
        code: 'UPSTREAM_BAD_RESPONSE',
        upstream: { service: 'vro', status: 200 },
      });
    } finally {
      stack.vro.faults.clear();
    }
  });

  it('answers UNAUTHENTICATED when vRO refuses the credentials, naming neither them nor the URL', async () => {
    const wrong = await startStack({
      configure: (config) => ({ ...config, vro: { ...config.vro, password: 'not-the-password' } }),
    });
    try {
      const answer = await wrong.gql<any>(query);
      expect(answer.errors?.[0]?.extensions).toMatchObject({
        code: 'UNAUTHENTICATED',
        upstream: { service: 'vro', status: 401, code: null },
      });
      const text = JSON.stringify(answer);
      expect(text).not.toContain('not-the-password');
      expect(text).not.toContain(wrong.vro.url.host);
      expect(wrong.vro.requests[0]?.headers.authorization).toBe(
        `Basic ${Buffer.from(`${wrong.vro.username}:not-the-password`).toString('base64')}`,
      );
    } finally {
      await wrong.close();
    }
  });

  it('answers UPSTREAM_TIMEOUT when vRO is slower than UPSTREAM_TIMEOUT_MS', async () => {
    const slow = await startStack({
      env: { UPSTREAM_TIMEOUT_MS: '150' },
    });
    slow.vro.faults.inject({ fault: { kind: 'delay', ms: 3000 } });
    try {
      const answer = await slow.gql<any>(`{ workflow(id: "${requestComponent}") { name } }`);
      expect(answer.data?.workflow).toBeNull();
      expect(answer.errors?.[0]?.extensions).toMatchObject({
        code: 'UPSTREAM_TIMEOUT',
        upstream: { service: 'vro', status: null },
      });
      expect(slow.vro.requests).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });

  it('answers UPSTREAM_UNAVAILABLE when vRO refuses the connection', async () => {
    const down = await startStack();
    try {
      await down.vro.close();
      const answer = await down.gql<any>(query);
      expect(answer.data?.workflows).toBeNull();
      expect(answer.errors?.[0]?.extensions).toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        upstream: { service: 'vro' },
      });
      expect(JSON.stringify(answer)).not.toContain(down.vro.url.host);
    } finally {
      await down.close();
    }
  });
});
