import {
  getArgumentValues,
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  OperationTypeNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type DocumentNode,
  type SelectionSetNode,
} from 'graphql';
import { auditArguments, generationOf, upstreamOf } from '../audit/audit-event.ts';
import type { AuditActor } from '../audit/audit-log.ts';
import { fieldActor } from '../audit/field-actor.ts';
import type { GatewayContext } from '../context.ts';
import { AuditLogUnavailableError, ForbiddenError } from '../errors.ts';
import type { TrailedCall } from '../http/upstream-http.ts';
import { redactSecrets } from '../http/redact.ts';
import type { Logger } from '../observability/logger.ts';
import { contractCodeOf } from '../plugins/error-codes.ts';
import type { Caller } from './caller.ts';

type Resolver = GraphQLFieldResolver<unknown, GatewayContext>;
type Field = GraphQLField<unknown, unknown>;

/** The scopes a field requires (any one inner list held in full), from its `@requiresScopes`. */
function requiredScopes(schema: GraphQLSchema, field: Field): string[][] {
  const directive = schema.getDirective('requiresScopes');
  if (directive === null || directive === undefined || !field.astNode) return [];
  const values = getDirectiveValues(directive, field.astNode) as
    { scopes?: string[][] } | undefined;
  return values?.scopes ?? [];
}

function holds(caller: Caller, required: readonly string[][]): boolean {
  return (
    required.length === 0 ||
    required.some((all) => all.every((scope) => caller.scopes.has(scope as never)))
  );
}

/**
 * True when a mutation in `document` selects a root field whose scope the
 * caller lacks: the guard will refuse it whole, so nothing it was sent (an
 * upload) needs reading. Fields under @skip/@include count as selected.
 */
export function mutationRefused(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  caller: Caller,
): boolean {
  const mutation = schema.getMutationType();
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation =
    operationName === undefined
      ? operations.length === 1
        ? operations[0]
        : undefined
      : operations.find((o) => o.name?.value === operationName);
  if (
    mutation === null ||
    mutation === undefined ||
    operation?.operation !== OperationTypeNode.MUTATION
  ) {
    return false;
  }
  const fragments = new Map(
    document.definitions.flatMap((d) =>
      d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [],
    ),
  );
  const seen = new Set<string>();
  const refused = (set: SelectionSetNode): boolean =>
    set.selections.some((selection) => {
      if (selection.kind === Kind.FIELD) {
        const field = mutation.getFields()[selection.name.value];
        return field !== undefined && !holds(caller, requiredScopes(schema, field));
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) return refused(selection.selectionSet);
      const fragment = fragments.get(selection.name.value);
      if (fragment === undefined || seen.has(fragment.name.value)) return false;
      seen.add(fragment.name.value);
      return refused(fragment.selectionSet);
    });
  return refused(operation.selectionSet);
}

function scopeText(required: readonly string[][]): string {
  return required.map((all) => all.map((s) => `"${s}"`).join(' and ')).join(' or ');
}

/** Who a field's audit event names: the credential it ran with, or whom that field's own sign-in named. */
export function actorOf(context: GatewayContext, info: GraphQLResolveInfo): AuditActor {
  return fieldActor(info) ?? { name: context.auth.caller.name, via: context.auth.caller.via };
}

/** Fields whose event is written once, when they complete (the contract's sign-in and sign-out). */
const completedOnly = new Set(['signIn', 'signOut']);

/** The root fields an operation runs, in order, as graphql-js collects them (skip/include honoured). */
function rootFields(info: GraphQLResolveInfo): FieldNode[] {
  const fields: FieldNode[] = [];
  const included = (node: { directives?: readonly unknown[] | undefined }): boolean => {
    const skip = getDirectiveValues(GraphQLSkipDirective, node as FieldNode, info.variableValues);
    const include = getDirectiveValues(
      GraphQLIncludeDirective,
      node as FieldNode,
      info.variableValues,
    );
    return skip?.['if'] !== true && include?.['if'] !== false;
  };
  const visit = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else {
        const fragment = info.fragments[selection.name.value];
        if (fragment !== undefined) visit(fragment.selectionSet);
      }
    }
  };
  visit(info.operation.selectionSet);
  return fields;
}

interface Guarded {
  required: string[][];
  field: Field;
}

/**
 * Guards every root field: one the caller lacks the scope for fails with
 * FORBIDDEN before its resolver runs (so before any upstream call); the
 * other fields of a query or subscription still answer. A mutation runs
 * whole or not at all: its results cannot be null, so a refused field would
 * null the answer of a field that already changed something; when any of
 * its fields is refused, none runs. Every allowed mutation field writes a
 * `started` audit event and runs only once the log took it (so a log that
 * cannot be written refuses it with AUDIT_UNAVAILABLE before any upstream
 * call); when it completes, and before the answer goes out, a `completed`
 * one. A denied field, a sign-in and a sign-out write `completed` only (the
 * last two run only while the log is ready).
 */
export function guardRootFields(schema: GraphQLSchema, logger: Logger): GraphQLSchema {
  const mutation = schema.getMutationType();
  const mutationFields = new Map<string, Guarded>();
  const roots: Array<[GraphQLObjectType | null | undefined, 'resolve' | 'subscribe']> = [
    [schema.getQueryType(), 'resolve'],
    [mutation, 'resolve'],
    [schema.getSubscriptionType(), 'subscribe'],
  ];
  for (const [type, hook] of roots) {
    if (type === null || type === undefined) continue;
    for (const field of Object.values(type.getFields())) {
      const required = requiredScopes(schema, field);
      const inner = (field[hook] ??
        ((source: unknown) => (source as Record<string, unknown>)[field.name])) as Resolver;
      if (type === mutation) {
        mutationFields.set(field.name, { required, field });
        field[hook] = audited(inner, mutationFields, logger) as GraphQLFieldResolver<
          unknown,
          unknown
        >;
        continue;
      }
      const checked: Resolver = (source, args, context, info) => {
        const { caller } = context.auth;
        if (!holds(caller, required)) {
          throw new ForbiddenError(
            `${type.name}.${field.name} requires the scope ${scopeText(required)}, which the caller (${caller.name}, ${caller.via}) does not hold.`,
            required.flat(),
          );
        }
        return inner(source, args, context, info);
      };
      field[hook] = checked as GraphQLFieldResolver<unknown, unknown>;
    }
  }
  return schema;
}

/** Per mutation operation run: the refusal, once its fields are checked; `written` once its events are. */
const refusals = new WeakMap<
  GatewayContext,
  { error: ForbiddenError | undefined; written: boolean }
>();

function audited(
  resolve: Resolver,
  fields: ReadonlyMap<string, Guarded>,
  logger: Logger,
): Resolver {
  /** What every event of a field holds: who, from where, what; its actor named after redaction. */
  const about = (
    context: GatewayContext,
    info: GraphQLResolveInfo,
    args: Record<string, unknown>,
  ) => {
    const recorded = auditArguments(args);
    const actor = actorOf(context, info);
    return {
      time: new Date().toISOString(),
      requestId: context.call.requestId,
      actor: { ...actor, name: redactSecrets(actor.name, recorded.secrets) },
      clientAddress: context.auth.clientAddress,
      operationName: info.operation.name?.value ?? null,
      field: info.fieldName,
      arguments: recorded.arguments,
    };
  };
  // async: whatever fails in making the event is a rejection its callers handle, never a throw
  const started = async (
    context: GatewayContext,
    info: GraphQLResolveInfo,
    args: Record<string, unknown>,
  ) =>
    context.identity.audit.write({
      ...about(context, info, args),
      stage: 'started',
      decision: 'allowed',
    });
  const event = async (
    context: GatewayContext,
    info: GraphQLResolveInfo,
    args: Record<string, unknown>,
    calls: readonly TrailedCall[],
    decision: 'allowed' | 'denied',
    outcome: string,
  ) => {
    const generation = generationOf(calls);
    return context.identity.audit.write({
      ...about(context, info, args),
      stage: 'completed',
      decision,
      outcome,
      upstream: upstreamOf(calls),
      ...(generation === undefined ? {} : { generation }),
    });
  };
  const refusal = (context: GatewayContext, info: GraphQLResolveInfo) => {
    let known = refusals.get(context);
    if (known === undefined) {
      const { caller } = context.auth;
      const lacking = rootFields(info).flatMap((node) => {
        const guarded = fields.get(node.name.value);
        return guarded === undefined || holds(caller, guarded.required)
          ? []
          : [{ name: node.name.value, required: guarded.required }];
      });
      const refused = lacking.map(
        ({ name, required }) => `${name} requires the scope ${scopeText(required)}`,
      );
      known = {
        error:
          refused.length === 0
            ? undefined
            : new ForbiddenError(
                `${[...new Set(refused)].join('; ')}, which the caller (${caller.name}, ${caller.via}) does not hold: no field of this mutation was run.`,
                lacking.flatMap(({ required }) => required.flat()),
              ),
        written: false,
      };
      refusals.set(context, known);
    }
    return known;
  };
  /** The denied events of every field of a refused mutation, once (its later fields never run in graphql-js). */
  const deny = async (context: GatewayContext, info: GraphQLResolveInfo, outcome: string) => {
    const state = refusal(context, info);
    if (state.written) return;
    state.written = true;
    for (const node of rootFields(info)) {
      const guarded = fields.get(node.name.value);
      if (guarded === undefined) continue;
      let args: Record<string, unknown>;
      try {
        args = getArgumentValues(guarded.field, node, info.variableValues);
      } catch {
        args = {};
      }
      await event(context, { ...info, fieldName: node.name.value }, args, [], 'denied', outcome);
    }
  };
  return async (source, args, context, info) => {
    const refused = refusal(context, info).error;
    if (refused !== undefined) {
      await deny(context, info, 'FORBIDDEN').catch(() => {});
      throw refused;
    }
    const fieldArgs = args as Record<string, unknown>;
    const accepted = completedOnly.has(info.fieldName)
      ? await context.identity.audit.ready()
      : await started(context, info, fieldArgs).then(
          () => true,
          () => false,
        );
    if (!accepted) {
      // Written if it can be: a write that succeeds makes the log usable again.
      await event(context, info, fieldArgs, [], 'denied', 'AUDIT_UNAVAILABLE').catch(() => {});
      throw new AuditLogUnavailableError();
    }
    const calls: TrailedCall[] = [];
    context.trail.current = calls;
    let outcome = 'ok';
    try {
      return await resolve(source, args, context, info);
    } catch (error) {
      outcome =
        error instanceof Error && 'extensions' in error
          ? contractCodeOf(error as never)
          : 'INTERNAL_SERVER_ERROR';
      throw error;
    } finally {
      context.trail.current = undefined;
      await event(context, info, fieldArgs, calls, 'allowed', outcome).catch((error: unknown) => {
        logger.error(
          {
            field: info.fieldName,
            requestId: context.call.requestId,
            reason: (error as Error).message,
          },
          'completed audit event not written: the field ran; the next mutation runs only once the log takes its started event',
        );
      });
    }
  };
}
