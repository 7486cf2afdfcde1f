import { mkdtemp, readFile, rename, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/audit/audit-log.ts';
import { type Stack, startStack, upstreamCalls } from '../helpers/stack.ts';

/** The simulator's no-op workflow: a run of it starts at once. */
const workflowId = '3eabedcb-baa8-4dd4-88bd-64072bcfbe01';
const centos = 'c7a0e3d2-5b1f-4c8e-9a6d-3f2b1e0d9c01';

const createIpSet = (name: string) =>
  `mutation { createIpSet(input: { name: "${name}", addresses: ["10.9.0.1"] }) { id } }`;
const runWorkflow = `mutation Run { runWorkflow(workflowId: "${workflowId}", inputs: []) { execution { id } } }`;
const requestCatalogItem = `mutation Order { requestCatalogItem(input: { catalogItemId: "${centos}" }) { request { id } } }`;
const importPackage = 'mutation Import($file: File!) { importPackage(file: $file) { imported } }';

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

/** Posts one operation, or a batch, as JSON. */
async function post(stack: Stack, body: unknown, headers: Record<string, string> = {}) {
  const response = await stack.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Answer | Answer[];
}

/** Sends one operation, or a batch, as a GraphQL multipart request, a package file mapped to `$file`. */
async function multipart(
  stack: Stack,
  operations: unknown,
  files: Record<string, string[]> = {},
  headers: Record<string, string> = {},
) {
  const form = new FormData();
  form.append('operations', JSON.stringify(operations));
  form.append('map', JSON.stringify(files));
  for (const key of Object.keys(files)) {
    form.append(key, new File([new Uint8Array([80, 75, 3, 4])], 'com.example.package'));
  }
  const response = await stack.fetch('/graphql', {
    method: 'POST',
    headers: { accept: 'application/json', ...headers },
    body: form,
  });
  return (await response.json()) as Answer | Answer[];
}

const codesOf = (answer: Answer | Answer[]): unknown[] =>
  (Array.isArray(answer) ? answer : [answer]).flatMap(
    (one) => one.errors?.map((e) => e.extensions?.['code']) ?? ['no error'],
  );

async function eventsIn(file: string): Promise<AuditEvent[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditEvent);
}

const ipSetName = (event: AuditEvent): string =>
  (event.arguments['input'] as { name: string }).name;

describe('AUDIT_LOG on a full disk (a symlink to /dev/full)', () => {
  let dir: string;
  let path: string;
  let real: string;
  let stack: Stack;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-full-'));
    path = join(dir, 'audit.log');
    real = join(dir, 'real.log');
    await symlink('/dev/full', path);
    stack = await startStack({ env: { AUDIT_LOG: path } });
  });
  afterAll(async () => {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  });
  const pointAt = async (target: string) => {
    await unlink(path);
    await symlink(target, path);
  };

  it('answers createIpSet, runWorkflow and requestCatalogItem sent by POST with AUDIT_UNAVAILABLE, and no appliance hears of them', async () => {
    const calls = upstreamCalls(stack);
    for (const query of [createIpSet('full-disk'), runWorkflow, requestCatalogItem]) {
      expect(codesOf(await post(stack, { query }))).toEqual(['AUDIT_UNAVAILABLE']);
    }
    expect(upstreamCalls(stack)).toBe(calls);
  });

  it('answers the same mutations, in a JSON batch and in parallel, with AUDIT_UNAVAILABLE and calls no appliance', async () => {
    const calls = upstreamCalls(stack);
    const batch = [createIpSet('batched'), runWorkflow, requestCatalogItem].map((query) => ({
      query,
    }));
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => post(stack, batch)).concat(
        Array.from({ length: 4 }, (_, i) => post(stack, { query: createIpSet(`parallel-${i}`) })),
      ),
    );
    expect(answers.flatMap(codesOf)).toEqual(Array.from({ length: 16 }, () => 'AUDIT_UNAVAILABLE'));
    expect(upstreamCalls(stack)).toBe(calls);
  });

  it('answers them, and importPackage with its file, sent as multipart (one and a batch) with AUDIT_UNAVAILABLE and calls no appliance', async () => {
    const calls = upstreamCalls(stack);
    const one = await multipart(stack, { query: runWorkflow });
    const upload = await multipart(
      stack,
      { query: importPackage, variables: { file: null } },
      { 0: ['variables.file'] },
    );
    const batch = await multipart(
      stack,
      [
        { query: createIpSet('multipart') },
        { query: requestCatalogItem },
        { query: importPackage, variables: { file: null } },
      ],
      { 0: ['2.variables.file'] },
    );
    expect([one, upload, batch].flatMap(codesOf)).toEqual(
      Array.from({ length: 5 }, () => 'AUDIT_UNAVAILABLE'),
    );
    expect(upstreamCalls(stack)).toBe(calls);
  });

  it('answers a mutation sent over SSE (Accept: text/event-stream) with AUDIT_UNAVAILABLE, and refuses one sent by GET, calling no appliance', async () => {
    const calls = upstreamCalls(stack);
    const response = await stack.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: createIpSet('over-sse') }),
    });
    const stream = await response.text();
    expect(stream).toContain('"code":"AUDIT_UNAVAILABLE"');
    expect(stream).not.toContain('"createIpSet":{');
    const viaGet = await stack.fetch(
      `/graphql?query=${encodeURIComponent(createIpSet('over-get'))}`,
      { headers: { accept: 'application/json' } },
    );
    expect(viaGet.status).toBe(405);
    expect(upstreamCalls(stack)).toBe(calls);
  });

  it('runs mutations once the path takes lines again, refuses them all while it is full again, and runs them after', async () => {
    await pointAt(real);
    try {
      const made = await post(stack, { query: createIpSet('writable-1') });
      expect(codesOf(made)).toEqual(['no error']);

      // The disk fills between two mutations: the next ones run nothing, however sent.
      await pointAt('/dev/full');
      const calls = upstreamCalls(stack);
      const refused = await Promise.all([
        post(stack, { query: createIpSet('filled-1') }),
        post(stack, [{ query: createIpSet('filled-2') }, { query: runWorkflow }]),
        multipart(stack, { query: requestCatalogItem }),
      ]);
      expect(refused.flatMap(codesOf)).toEqual(
        Array.from({ length: 4 }, () => 'AUDIT_UNAVAILABLE'),
      );
      expect(upstreamCalls(stack)).toBe(calls);
      expect(stack.nsx.requests.some((r) => r.body.includes('filled-'))).toBe(false);

      await pointAt(real);
      const again = await post(stack, { query: createIpSet('writable-2') });
      expect(codesOf(again)).toEqual(['no error']);
      const events = await eventsIn(real);
      expect(events.map((e) => `${e.stage} ${e.decision} ${ipSetName(e)}`)).toEqual([
        'started allowed writable-1',
        'completed allowed writable-1',
        'started allowed writable-2',
        'completed allowed writable-2',
      ]);
    } finally {
      await pointAt('/dev/full');
    }
  });
});

describe('AUDIT_LOG rotated (mv audit.log audit.log.1) under way', () => {
  let dir: string;
  let path: string;
  let stack: Stack;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-rotate-'));
    path = join(dir, 'audit.log');
    stack = await startStack({ env: { AUDIT_LOG: path } });
  });
  afterAll(async () => {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    stack.nsx.faults.clear();
  });

  it('writes the events after a rename to a new file at the path, and loses none', async () => {
    expect(codesOf(await post(stack, { query: createIpSet('before-rotation') }))).toEqual([
      'no error',
    ]);
    await rename(path, `${path}.1`);
    expect(codesOf(await post(stack, { query: createIpSet('after-rotation') }))).toEqual([
      'no error',
    ]);
    const old = await eventsIn(`${path}.1`);
    const now = await eventsIn(path);
    expect(now.map(ipSetName)).toEqual(['after-rotation', 'after-rotation']);
    expect(old.map((e) => `${e.stage} ${ipSetName(e)}`)).toEqual([
      'started before-rotation',
      'completed before-rotation',
    ]);
    expect(now.map((e) => `${e.stage} ${ipSetName(e)}`)).toEqual([
      'started after-rotation',
      'completed after-rotation',
    ]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await rm(`${path}.1`);
  });

  it('writes the completed events of mutations in flight during a rotation (logrotate create) to the new file', async () => {
    const rotated = `${path}.2`;
    stack.nsx.faults.inject({ method: 'POST', path: /ipset/, fault: { kind: 'delay', ms: 300 } });
    const names = Array.from({ length: 6 }, (_, i) => `in-flight-${i}`);
    const nsxBefore = stack.nsx.requests.length;
    const answers = Promise.all(names.map((name) => post(stack, { query: createIpSet(name) })));
    // Every started event is written before its POST reaches NSX, where it now waits.
    const deadline = Date.now() + 5000;
    while (
      stack.nsx.requests.slice(nsxBefore).filter((r) => r.method === 'POST').length <
        names.length &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await rename(path, rotated);
    await writeFile(path, '', { mode: 0o600 });
    expect((await answers).flatMap(codesOf)).toEqual(names.map(() => 'no error'));

    const old = (await eventsIn(rotated)).filter((e) => ipSetName(e).startsWith('in-flight-'));
    const now = await eventsIn(path);
    expect(now.map(ipSetName).sort()).toEqual(names);
    expect(old.map((e) => e.stage)).toEqual(names.map(() => 'started'));
    expect(now.map((e) => e.stage)).toEqual(names.map(() => 'completed'));
    expect(old.map(ipSetName).sort()).toEqual(names);
  });
});

describe('the actor of each event under a sign-in beside it', () => {
  let dir: string;
  let stack: Stack;
  const operator = { authorization: 'Bearer operator-token-0123456789abcdef' };
  const person = { username: 'dba@vsphere.local', password: 'dba-simulator' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-actor-'));
    const tokens = join(dir, 'tokens.json');
    await writeFile(
      tokens,
      JSON.stringify([
        {
          name: 'operator',
          token: 'operator-token-0123456789abcdef',
          scopes: ['read', 'network:write', 'workflow:run'],
        },
      ]),
    );
    stack = await startStack({ env: { GATEWAY_TOKENS_FILE: tokens } });
  });
  afterAll(async () => {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  });

  const signIn = (username: string, password: string) =>
    `signIn(username: "${username}", password: "${password}") { name }`;

  it('audits createIpSet beside a successful signIn in one operation as the token it ran with, and signIn as the person', async () => {
    const before = stack.audit.length;
    const nsxBefore = stack.nsx.requests.length;
    const answer = (await post(
      stack,
      {
        query: `mutation Both { ${signIn(person.username, person.password)}
          createIpSet(input: { name: "beside-sign-in", addresses: ["10.9.0.9"] }) { id } }`,
      },
      operator,
    )) as Answer;
    expect(answer.errors).toBeUndefined();
    const events = stack.audit.slice(before);
    expect(events.map((e) => [e.field, e.stage, e.outcome, e.actor])).toEqual([
      ['signIn', 'completed', 'ok', { name: person.username, via: 'session' }],
      ['createIpSet', 'started', undefined, { name: 'operator', via: 'token' }],
      ['createIpSet', 'completed', 'ok', { name: 'operator', via: 'token' }],
    ]);
    // ...and it ran with the gateway's own NSX account, as the token does, not as the person.
    const created = stack.nsx.requests.slice(nsxBefore).find((r) => r.method === 'POST');
    expect(created?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${stack.nsx.username}:${stack.nsx.password}`).toString('base64')}`,
    );
  });

  it('audits runWorkflow batched after a failed signIn naming anyone as the token, in either order, repeated, as JSON and multipart', async () => {
    const before = stack.audit.length;
    const failed = { query: `mutation { ${signIn('anyone@vsphere.local', 'wrong-password')} }` };
    const run = { query: runWorkflow };
    const answers = await Promise.all([
      post(stack, [failed, run], operator),
      post(stack, [run, failed], operator),
      // four failed sign-ins: below the limit of five per user name
      post(stack, [failed, run, run], operator),
      multipart(stack, [failed, run], {}, operator),
    ]);
    expect(answers.flat().flatMap(codesOf).sort()).toEqual(
      [...Array(4).fill('UNAUTHENTICATED'), ...Array(5).fill('no error')].sort(),
    );
    const events = stack.audit.slice(before);
    const runs = events.filter((e) => e.field === 'runWorkflow');
    const signIns = events.filter((e) => e.field === 'signIn');
    expect(runs.filter((e) => e.actor.name !== 'operator' || e.actor.via !== 'token')).toEqual([]);
    expect(runs.map((e) => e.stage).sort()).toEqual([
      ...Array(5).fill('completed'),
      ...Array(5).fill('started'),
    ]);
    expect(signIns.map((e) => [e.outcome, e.actor])).toEqual(
      Array(4).fill(['UNAUTHENTICATED', { name: 'anyone@vsphere.local', via: 'anonymous' }]),
    );
  });
});
