import {
  buildSchema,
  graphql,
  graphqlSync,
  GraphQLError,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import type { AuditActor, AuditEvent } from '../../src/audit/audit-log.ts';
import { nameFieldActor } from '../../src/audit/field-actor.ts';
import type { Caller } from '../../src/auth/caller.ts';
import { guardRootFields } from '../../src/auth/root-guard.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import type { GatewayContext } from '../../src/context.ts';
import type { TrailedCall } from '../../src/http/upstream-http.ts';

const sdl = `
  directive @requiresScopes(scopes: [[String!]!]!) on FIELD_DEFINITION | OBJECT
  type Query {
    open: String
    read: String @requiresScopes(scopes: [["read"]])
    both: String @requiresScopes(scopes: [["read", "network:write"], ["catalog:admin"]])
  }
  type Mutation {
    signOut: Boolean
    edit(id: ID!, password: String): String @requiresScopes(scopes: [["network:write"]])
    run(id: ID!): String @requiresScopes(scopes: [["workflow:run"]])
  }
  type Subscription {
    watch: String @requiresScopes(scopes: [["read"]])
  }
`;

interface Harness {
  schema: GraphQLSchema;
  events: AuditEvent[];
  ran: string[];
  logged: unknown[];
}

function harness(
  options: {
    ready?: boolean;
    /** Every write fails (a full disk). */
    writeFails?: boolean;
    /** Only `completed` events fail to be written. */
    completedFails?: boolean;
    /** Only `started` events fail to be written. */
    startedFails?: boolean;
    /** Fields that name their own audit actor, as a sign-in does. */
    names?: Record<string, AuditActor>;
    fail?: Record<string, Error>;
    calls?: TrailedCall[];
  } = {},
): Harness & {
  context: (caller: Caller, extra?: Partial<GatewayContext['auth']>) => GatewayContext;
} {
  const events: AuditEvent[] = [];
  const ran: string[] = [];
  const logged: unknown[] = [];
  const schema = buildSchema(sdl);
  const resolveAs =
    (name: string) =>
    (
      _: unknown,
      args: Record<string, unknown>,
      context: GatewayContext,
      info: GraphQLResolveInfo,
    ) => {
      ran.push(name);
      const named = options.names?.[name];
      if (named !== undefined) nameFieldActor(info, named);
      context.trail.current?.push(...(options.calls ?? []));
      const failure = options.fail?.[name];
      if (failure !== undefined) throw failure;
      return `${name}:${JSON.stringify(args)}`;
    };
  for (const [type, names] of [
    [schema.getQueryType(), ['open', 'read', 'both']],
    [schema.getMutationType(), ['signOut', 'edit', 'run']],
  ] as const) {
    for (const name of names) {
      const field = type?.getFields()[name];
      if (field !== undefined) field.resolve = resolveAs(name) as never;
    }
  }
  const watch = schema.getSubscriptionType()?.getFields()['watch'];
  if (watch !== undefined) {
    watch.subscribe = (() => {
      ran.push('watch');
      return {
        [Symbol.asyncIterator]: () => ({
          next: () => Promise.resolve({ done: true, value: undefined }),
        }),
      };
    }) as never;
  }
  const logger = { error: (...args: unknown[]) => logged.push(args) } as never;
  guardRootFields(schema, logger);
  const context = (caller: Caller, extra: Partial<GatewayContext['auth']> = {}): GatewayContext =>
    ({
      auth: { caller, clientAddress: '192.0.2.7', setCookies: [], ...extra },
      identity: {
        audit: {
          ready: () => Promise.resolve(options.ready ?? true),
          write: (event: AuditEvent) => {
            if (options.writeFails === true) return Promise.reject(new Error('disk full'));
            if (options.startedFails === true && event.stage === 'started') {
              return Promise.reject(new Error('disk full'));
            }
            if (options.completedFails === true && event.stage === 'completed') {
              return Promise.reject(new Error('disk full'));
            }
            events.push(event);
            return Promise.resolve();
          },
        },
      },
      call: { requestId: 'req-1' },
      trail: { current: undefined },
    }) as unknown as GatewayContext;
  return { schema, events, ran, logged, context };
}

const caller = (...scopes: Scope[]): Caller => ({
  name: 'ann',
  via: 'token',
  scopes: new Set(scopes),
});

async function run(h: ReturnType<typeof harness>, source: string, who: Caller, variables = {}) {
  return graphql({
    schema: h.schema,
    source,
    contextValue: h.context(who),
    variableValues: variables,
  });
}

describe('guardRootFields: queries', () => {
  it('answers an open field to anyone and a guarded one to a caller holding its scope', async () => {
    const h = harness();
    const result = await run(h, '{ open read }', caller('read'));
    expect(result).toEqual({ data: { open: 'open:{}', read: 'read:{}' } });
  });

  it('refuses a field the caller lacks the scope for, before its resolver, and answers the others', async () => {
    const h = harness();
    const result = await run(h, '{ open read }', caller('workflow:run'));
    expect(result.data).toEqual({ open: 'open:{}', read: null });
    expect(h.ran).toEqual(['open']);
    expect(result.errors?.[0]?.message).toBe(
      'Query.read requires the scope "read", which the caller (ann, token) does not hold.',
    );
    expect(result.errors?.[0]?.extensions['code']).toBe('FORBIDDEN');
  });

  it('takes any one list of scopes held in full', async () => {
    const h = harness();
    expect((await run(h, '{ both }', caller('read', 'network:write'))).data).toEqual({
      both: 'both:{}',
    });
    expect((await run(h, '{ both }', caller('catalog:admin'))).data).toEqual({ both: 'both:{}' });
    const partly = await run(h, '{ both }', caller('read', 'catalog:request'));
    expect(partly.errors?.[0]?.message).toBe(
      'Query.both requires the scope "read" and "network:write" or "catalog:admin", which the caller (ann, token) does not hold.',
    );
  });

  it("adds no promise to a field: a synchronous resolver's very value passes through", () => {
    const value = { kept: 'as is' };
    const schema = buildSchema(sdl);
    const fields = schema.getQueryType()!.getFields();
    fields['read']!.resolve = () => value;
    fields['open']!.resolve = () => 'open';
    guardRootFields(schema, { error: () => {} } as never);
    const context = harness().context(caller('read'));
    expect(fields['read']!.resolve(undefined, {}, context, {} as never)).toBe(value);
    // 30 guarded fields run synchronously to the end: graphqlSync throws at the first promise
    const thirty = `{ ${Array.from({ length: 30 }, (_, n) => `f${n}: open`).join(' ')} }`;
    const result = graphqlSync({ schema, source: thirty, contextValue: context });
    expect(result.errors).toBeUndefined();
    expect(Object.keys(result.data ?? {})).toHaveLength(30);
  });

  it('guards a subscription field too', async () => {
    const h = harness();
    const { subscribe, parse } = await import('graphql');
    const refused = await subscribe({
      schema: h.schema,
      document: parse('subscription { watch }'),
      contextValue: h.context(caller()),
    });
    expect(JSON.stringify(refused)).toMatch(/Subscription\.watch requires the scope \\"read\\"/);
    expect(h.ran).toEqual([]);
    const allowed = await subscribe({
      schema: h.schema,
      document: parse('subscription { watch }'),
      contextValue: h.context(caller('read')),
    });
    expect(Symbol.asyncIterator in allowed).toBe(true);
    expect(h.ran).toEqual(['watch']);
  });
});

describe('guardRootFields: mutations', () => {
  it('runs an allowed mutation field and writes an allowed event with its upstream calls', async () => {
    const calls: TrailedCall[] = [
      { service: 'nsx', method: 'GET', route: '/rules', status: 200, etag: '"4"' },
      { service: 'nsx', method: 'PUT', route: '/rules', status: 200, ifMatch: '"4"', etag: '"5"' },
    ];
    const h = harness({ calls });
    const result = await run(
      h,
      'mutation Edit { edit(id: "r1", password: "hunter22") }',
      caller('network:write'),
    );
    expect(result).toEqual({ data: { edit: 'edit:{"id":"r1","password":"hunter22"}' } });
    expect(h.events).toHaveLength(2);
    const [start, event] = h.events;
    expect(start).toEqual({
      time: expect.any(String),
      requestId: 'req-1',
      actor: { name: 'ann', via: 'token' },
      clientAddress: '192.0.2.7',
      operationName: 'Edit',
      field: 'edit',
      arguments: { id: 'r1', password: '[REDACTED]' },
      stage: 'started',
      decision: 'allowed',
    });
    expect(event).toMatchObject({
      stage: 'completed',
      requestId: 'req-1',
      actor: { name: 'ann', via: 'token' },
      clientAddress: '192.0.2.7',
      operationName: 'Edit',
      field: 'edit',
      decision: 'allowed',
      outcome: 'ok',
      upstream: [
        { service: 'nsx', method: 'GET', route: '/rules', status: 200 },
        { service: 'nsx', method: 'PUT', route: '/rules', status: 200 },
      ],
      generation: { before: '4', after: '5' },
    });
    expect(event?.arguments['id']).toBe('r1');
    expect(JSON.stringify(event)).not.toContain('hunter22');
    expect(Date.parse(event?.time ?? '')).toBeGreaterThan(Date.now() - 60_000);
  });

  it('runs no field of a mutation with a refused one, and writes a denied event for each field', async () => {
    const h = harness();
    const result = await run(
      h,
      'mutation { run(id: "w") edit(id: "r") again: edit(id: "s") signOut }',
      caller('workflow:run'),
    );
    expect(h.ran).toEqual([]);
    expect(result.data).toEqual({ run: null, edit: null, again: null, signOut: null });
    expect(result.errors?.[0]?.message).toBe(
      'edit requires the scope "network:write", which the caller (ann, token) does not hold: no field of this mutation was run.',
    );
    expect(result.errors?.[0]?.extensions['code']).toBe('FORBIDDEN');
    expect(h.events.map((e) => [e.field, e.decision, e.outcome, e.arguments])).toEqual([
      ['run', 'denied', 'FORBIDDEN', { id: 'w' }],
      ['edit', 'denied', 'FORBIDDEN', { id: 'r' }],
      ['edit', 'denied', 'FORBIDDEN', { id: 's' }],
      ['signOut', 'denied', 'FORBIDDEN', {}],
    ]);
    expect(h.events.every((e) => e.operationName === null && e.generation === undefined)).toBe(
      true,
    );
  });

  it('names every refused field once, and honours skip, include and fragments in finding them', async () => {
    const h = harness();
    const result = await run(
      h,
      `mutation M($no: Boolean!) {
        ... on Mutation { run(id: "a") }
        ...F
        edit(id: "skipped") @skip(if: true)
        other: edit(id: "not included") @include(if: $no)
      }
      fragment F on Mutation { again: run(id: "b") }`,
      caller(),
      { no: false },
    );
    expect(result.errors?.[0]?.message).toBe(
      'run requires the scope "workflow:run", which the caller (ann, token) does not hold: no field of this mutation was run.',
    );
    expect(h.events.map((e) => e.arguments['id'])).toEqual(['a', 'b']);
  });

  it('writes a denied event with no arguments when its arguments cannot be read', async () => {
    const h = harness();
    await run(h, 'mutation ($id: ID!) { run(id: $id) }', caller(), {});
    expect(h.events.map((e) => [e.field, e.arguments])).toEqual([]);
    await run(h, 'mutation { edit(id: "x") run(id: 1) }', caller('workflow:run'));
    expect(h.events.map((e) => [e.field, e.arguments])).toEqual([
      ['edit', { id: 'x' }],
      ['run', { id: '1' }],
    ]);
  });

  it('records the contract code of a field that fails, and an internal error for a plain one', async () => {
    const h = harness({
      fail: {
        edit: new GraphQLError('nope', { extensions: { code: 'CONFLICT' } }),
        run: new Error('bug'),
      },
    });
    const result = await run(h, 'mutation { edit(id: "x") }', caller('network:write'));
    expect(result.errors?.[0]?.message).toBe('nope');
    await run(h, 'mutation { run(id: "x") }', caller('workflow:run'));
    expect(h.events.map((e) => [e.field, e.stage, e.decision, e.outcome])).toEqual([
      ['edit', 'started', 'allowed', undefined],
      ['edit', 'completed', 'allowed', 'CONFLICT'],
      ['run', 'started', 'allowed', undefined],
      ['run', 'completed', 'allowed', 'INTERNAL_SERVER_ERROR'],
    ]);
  });

  it('runs no mutation field whose started event the log did not take, writing a denied event if it can', async () => {
    const h = harness({ startedFails: true });
    const result = await run(
      h,
      'mutation { edit(id: "x") run(id: "y") }',
      caller('network:write', 'workflow:run'),
    );
    expect(h.ran).toEqual([]);
    expect(result.errors?.[0]?.extensions['code']).toBe('AUDIT_UNAVAILABLE');
    expect(h.events.map((e) => [e.field, e.stage, e.decision, e.outcome])).toEqual([
      ['edit', 'completed', 'denied', 'AUDIT_UNAVAILABLE'],
      ['run', 'completed', 'denied', 'AUDIT_UNAVAILABLE'],
    ]);
  });

  it('runs nothing while no write succeeds, though the log says it is ready (a full disk opens fine)', async () => {
    const h = harness({ writeFails: true, ready: true });
    const result = await run(h, 'mutation { edit(id: "x") }', caller('network:write'));
    expect(h.ran).toEqual([]);
    expect(result.errors?.[0]?.extensions['code']).toBe('AUDIT_UNAVAILABLE');
    expect(h.events).toEqual([]);
  });

  it('runs no sign-out (completed event only) while the log is not ready', async () => {
    const h = harness({ ready: false });
    const result = await run(h, 'mutation { signOut }', caller());
    expect(h.ran).toEqual([]);
    expect(result.errors?.[0]?.extensions['code']).toBe('AUDIT_UNAVAILABLE');
    expect(h.events.map((e) => [e.field, e.stage, e.decision, e.outcome])).toEqual([
      ['signOut', 'completed', 'denied', 'AUDIT_UNAVAILABLE'],
    ]);
    await run(harness({ ready: true }), 'mutation { signOut }', caller());
    const ready = harness();
    await run(ready, 'mutation { signOut }', caller());
    expect(ready.events.map((e) => [e.field, e.stage, e.outcome])).toEqual([
      ['signOut', 'completed', 'ok'],
    ]);
  });

  it('answers a mutation whose completed event cannot be written, and logs that it was not', async () => {
    const h = harness({ completedFails: true });
    const result = await run(h, 'mutation { edit(id: "x") }', caller('network:write'));
    expect(result.data).toEqual({ edit: 'edit:{"id":"x"}' });
    expect(h.logged).toHaveLength(1);
    expect(JSON.stringify(h.logged[0])).toContain('"reason":"disk full"');
    expect(JSON.stringify(h.logged[0])).toContain('"requestId":"req-1"');
    const refused = await run(h, 'mutation { edit(id: "x") }', caller());
    expect(refused.errors?.[0]?.extensions['code']).toBe('FORBIDDEN');
  });

  it("names the person a field signed in as that field's actor only, with a secret typed as a name redacted", async () => {
    const h = harness({ names: { edit: { name: 'hunter22-as-name', via: 'session' } } });
    await run(
      h,
      'mutation { edit(id: "x", password: "hunter22-as-name") run(id: "y") }',
      caller('network:write', 'workflow:run'),
    );
    expect(h.events.map((e) => [e.field, e.stage, e.actor])).toEqual([
      ['edit', 'started', { name: 'ann', via: 'token' }],
      ['edit', 'completed', { name: '[redacted]', via: 'session' }],
      ['run', 'started', { name: 'ann', via: 'token' }],
      ['run', 'completed', { name: 'ann', via: 'token' }],
    ]);
  });
});

describe('guardRootFields, at its edges', () => {
  it('guards a schema without a mutation or subscription type', async () => {
    const schema = buildSchema(`
      directive @requiresScopes(scopes: [[String!]!]!) on FIELD_DEFINITION | OBJECT
      type Query { read: String @requiresScopes(scopes: [["read"]]) }
    `);
    const field = schema.getQueryType()?.getFields()['read'];
    if (field !== undefined) field.resolve = () => 'r';
    guardRootFields(schema, { error: () => undefined } as never);
    const h = harness();
    const result = await graphql({ schema, source: '{ read }', contextValue: h.context(caller()) });
    expect(result.errors?.[0]?.extensions['code']).toBe('FORBIDDEN');
  });

  it('writes no generation for a change that sent none, and passes over __typename in a mutation', async () => {
    const h = harness();
    const result = await run(h, 'mutation { __typename edit(id: "x") }', caller('network:write'));
    expect(result.data).toEqual({ __typename: 'Mutation', edit: 'edit:{"id":"x"}' });
    expect(h.events).toHaveLength(2);
    expect('generation' in (h.events[1] ?? {})).toBe(false);
    const refused = await run(h, 'mutation { __typename run(id: "x") }', caller());
    expect(refused.errors?.[0]?.extensions['code']).toBe('FORBIDDEN');
    expect(h.events.map((e) => [e.field, e.stage, e.decision])).toEqual([
      ['edit', 'started', 'allowed'],
      ['edit', 'completed', 'allowed'],
      ['run', 'completed', 'denied'],
    ]);
  });
});
