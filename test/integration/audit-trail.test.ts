import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/audit/audit-log.ts';
import { type Stack, startStack, upstreamCalls } from '../helpers/stack.ts';

const addRule = `mutation AddRule($rule: FirewallRuleInput!) {
  addApplicationFirewallRule(portGroupId: "dvportgroup-63", rule: $rule, position: 0) { generationNumber }
}`;
const rule = {
  action: 'allow',
  notes: 'audited rule',
  source: { address: { containerId: 'ipset-3' } },
  destination: { application: { applicationSetId: 'application-400' } },
};
const createIpSet = `mutation CreateIpSet($name: String!) {
  createIpSet(input: { name: $name, addresses: ["10.9.0.1"] }) { id }
}`;

describe('the audit trail', () => {
  let dir: string;
  let stack: Stack;
  const readOnly = 'read-only-token-0123456789';
  const operator = 'network-operator-token-0123';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-'));
    const tokens = join(dir, 'tokens.json');
    await writeFile(
      tokens,
      JSON.stringify([
        { name: 'dashboard', token: readOnly, scopes: ['read'] },
        { name: 'netops', token: operator, scopes: ['read', 'network:write'] },
      ]),
    );
    stack = await startStack({ env: { GATEWAY_TOKENS_FILE: tokens } });
  });
  afterAll(async () => {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  });

  const as = (token: string) => ({
    authorization: `Bearer ${token}`,
    'x-request-id': `req-${token.slice(0, 4)}`,
  });

  it('writes a started then a completed event for an allowed firewall edit: actor, arguments, upstream calls and the generation before and after', async () => {
    const before = stack.audit.length;
    const answer = await stack.gql<any>(addRule, { rule }, as(operator));
    expect(answer.errors).toBeUndefined();
    const events = stack.audit.slice(before);
    expect(events).toHaveLength(2);
    const [start, event] = events;
    expect(start).toMatchObject({
      stage: 'started',
      requestId: 'req-netw',
      actor: { name: 'netops', via: 'token' },
      operationName: 'AddRule',
      field: 'addApplicationFirewallRule',
      arguments: { portGroupId: 'dvportgroup-63', position: 0, rule: { notes: 'audited rule' } },
      decision: 'allowed',
    });
    expect(start).not.toHaveProperty('outcome');
    expect(start).not.toHaveProperty('upstream');
    if (event?.stage !== 'completed') throw new Error('no completed event');
    expect(event).toMatchObject({
      stage: 'completed',
      requestId: 'req-netw',
      actor: { name: 'netops', via: 'token' },
      operationName: 'AddRule',
      field: 'addApplicationFirewallRule',
      arguments: { portGroupId: 'dvportgroup-63', position: 0, rule: { notes: 'audited rule' } },
      decision: 'allowed',
      outcome: 'ok',
      clientAddress: null,
    });
    expect(Date.parse(event.time)).toBeGreaterThan(Date.now() - 10_000);
    const route = '/api/2.0/app/firewall/{contextId}/config';
    expect(event.upstream.map((c) => `${c.method} ${c.route} ${c.status}`)).toEqual(
      stack.nsx.requests
        .slice(-event.upstream.length)
        .map((r) => `${r.method} ${route} ${r.method === 'POST' ? 204 : 200}`),
    );
    const post = stack.nsx.requests.filter((r) => r.method === 'POST').at(-1);
    const sentGeneration = String(post?.headers['if-match']).replaceAll('"', '');
    expect(event.generation).toEqual({
      before: sentGeneration,
      after: answer.data.addApplicationFirewallRule.generationNumber,
    });
    expect(event.generation?.before).not.toBe(event.generation?.after);
  });

  it('writes a denied event, makes no upstream call, for a mutation outside the caller scopes', async () => {
    const before = stack.audit.length;
    const calls = upstreamCalls(stack);
    const answer = await stack.gql(createIpSet, { name: 'denied-set' }, as(readOnly));
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('FORBIDDEN');
    expect(answer.errors?.[0]?.message).toContain('"network:write"');
    expect(upstreamCalls(stack)).toBe(calls);
    expect(stack.audit.slice(before)).toEqual([
      expect.objectContaining({
        actor: { name: 'dashboard', via: 'token' },
        field: 'createIpSet',
        arguments: {
          scopeId: 'globalroot-0',
          input: { name: 'denied-set', addresses: ['10.9.0.1'] },
        },
        decision: 'denied',
        outcome: 'FORBIDDEN',
        upstream: [],
      }),
    ]);
  });

  it('writes two events per mutation field, each with its own calls and outcome', async () => {
    const before = stack.audit.length;
    const answer = await stack.gql<any>(
      `mutation { a: createIpSet(input: { name: "one", addresses: ["10.9.0.2"] }) { id }
        b: deleteIpSet(id: "ipset-404") { id } }`,
      {},
      as(operator),
    );
    // deleteIpSet cannot be null: its NOT_FOUND nulls the data, the created set stays
    expect(answer.errors?.map((e) => [e.path, e.extensions?.['code']])).toEqual([
      [['b'], 'NOT_FOUND'],
    ]);
    expect(
      stack.nsx.requests.some((r) => r.method === 'POST' && r.body.includes('<name>one</name>')),
    ).toBe(true);
    const events = stack.audit.slice(before);
    expect(events.map((e) => [e.field, e.stage, e.decision, e.outcome])).toEqual([
      ['createIpSet', 'started', 'allowed', undefined],
      ['createIpSet', 'completed', 'allowed', 'ok'],
      ['deleteIpSet', 'started', 'allowed', undefined],
      ['deleteIpSet', 'completed', 'allowed', 'NOT_FOUND'],
    ]);
    expect(events[1]?.upstream?.map((c) => c.method)).toEqual(['POST', 'GET']);
    expect(events[3]?.upstream?.map((c) => `${c.method} ${c.status}`)).toEqual(['DELETE 404']);
  });

  it('records a mutation refused for want of a credential (401): one denied event per field, nothing run', async () => {
    const before = stack.audit.length;
    const calls = upstreamCalls(stack);
    for (const headers of [{}, { authorization: 'Bearer not-a-token-of-the-file' }]) {
      const answer = await stack.gql(
        `mutation Sneaky($n: String!) { createIpSet(input: { name: $n, addresses: ["10.6.6.6"] }) { id }
          forceSyncEdge(edgeId: "edge-1") { edgeId } }`,
        { n: 'sneaky-set' },
        { ...headers, 'x-request-id': 'sneaky' },
      );
      expect(answer.status).toBe(401);
    }
    expect(upstreamCalls(stack)).toBe(calls);
    const events = stack.audit.slice(before);
    expect(events.map((e) => [e.field, e.decision, e.outcome, e.actor.via])).toEqual([
      ['createIpSet', 'denied', 'UNAUTHENTICATED', 'anonymous'],
      ['forceSyncEdge', 'denied', 'UNAUTHENTICATED', 'anonymous'],
      ['createIpSet', 'denied', 'UNAUTHENTICATED', 'anonymous'],
      ['forceSyncEdge', 'denied', 'UNAUTHENTICATED', 'anonymous'],
    ]);
    expect(events[0]).toMatchObject({
      requestId: 'sneaky',
      operationName: 'Sneaky',
      arguments: { input: { name: 'sneaky-set', addresses: ['10.6.6.6'] } },
      upstream: [],
    });
    expect(JSON.stringify(events)).not.toContain('not-a-token-of-the-file');
  });

  it('records sign-ins (failed and made) and sign-outs, never the password', async () => {
    const before = stack.audit.length;
    const signIn =
      'mutation($p: String!) { signIn(username: "dba@vsphere.local", password: $p) { name } }';
    await stack.gql(signIn, { p: 'wrong-password-xyz' });
    const made = await stack.gql(signIn, { p: 'dba-simulator' });
    const cookie = /gateway_session=([^;]+)/.exec(made.headers.getSetCookie().join())?.[1] ?? '';
    await stack.gql('mutation { signOut }', {}, { cookie: `gateway_session=${cookie}` });
    const events = stack.audit.slice(before);
    expect(events.map((e) => [e.field, e.actor, e.outcome])).toEqual([
      ['signIn', { name: 'dba@vsphere.local', via: 'anonymous' }, 'UNAUTHENTICATED'],
      ['signIn', { name: 'dba@vsphere.local', via: 'session' }, 'ok'],
      ['signOut', { name: 'dba@vsphere.local', via: 'session' }, 'ok'],
    ]);
    expect(events[0]?.arguments).toEqual({ username: 'dba@vsphere.local', password: '[REDACTED]' });
    const written = JSON.stringify(events);
    for (const secret of [
      'wrong-password-xyz',
      'dba-simulator',
      cookie,
      ...stack.vra.issuedTokens(),
    ]) {
      expect(written).not.toContain(secret);
    }
  });
});

describe('AUDIT_LOG as a file', () => {
  it('appends one JSON line per mutation; while it cannot be written, mutations answer AUDIT_UNAVAILABLE and run nothing, until it can again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'audit-file-'));
    const logDir = join(dir, 'logs');
    const file = join(logDir, 'audit.jsonl');
    const stack = await startStack({ env: { AUDIT_LOG: file } });
    try {
      const calls = upstreamCalls(stack);
      const refused = await stack.gql(createIpSet, { name: 'while-unwritable' });
      expect(refused.errors?.[0]?.extensions?.['code']).toBe('AUDIT_UNAVAILABLE');
      expect(upstreamCalls(stack)).toBe(calls);
      // queries are not held back
      expect((await stack.gql('{ ipSets { id } }')).errors).toBeUndefined();

      await mkdir(logDir);
      const made = await stack.gql<any>(createIpSet, { name: 'once-writable' });
      expect(made.errors).toBeUndefined();
      await stack.gql(createIpSet, { name: 'second' });
      const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
      expect(
        lines.map((l) => {
          const event = JSON.parse(l) as AuditEvent;
          return `${event.stage} ${(event.arguments['input'] as { name: string }).name}`;
        }),
      ).toEqual([
        'started once-writable',
        'completed once-writable',
        'started second',
        'completed second',
      ]);
      expect(JSON.parse(lines[1] ?? '')).toMatchObject({
        actor: { name: 'anonymous', via: 'anonymous' },
        field: 'createIpSet',
        decision: 'allowed',
        outcome: 'ok',
      });
    } finally {
      await stack.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
