import {
  getDirectiveValues,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { auditArguments, generationOf, upstreamOf } from '../audit/audit-event.ts';
import type { AuditActor } from '../audit/audit-log.ts';
import type { GatewayContext } from '../context.ts';
import { AuditLogUnavailableError, ForbiddenError } from '../errors.ts';
import { redactSecrets } from '../http/redact.ts';
import type { TrailedCall } from '../http/upstream-http.ts';
import type { Logger } from '../observability/logger.ts';
import { contractCodeOf } from '../plugins/error-codes.ts';
import type { Caller } from './caller.ts';

type Resolver = GraphQLFieldResolver<unknown, GatewayContext>;

/** The scopes a field requires (any one inner list held in full), from its `@requiresScopes`. */
function requiredScopes(schema: GraphQLSchema, field: { astNode?: unknown }): string[][] {
  const directive = schema.getDirective('requiresScopes');
  const node = field.astNode as Parameters<typeof getDirectiveValues>[1] | undefined;
  if (directive === null || directive === undefined || node === undefined) return [];
  const values = getDirectiveValues(directive, node) as { scopes?: string[][] } | undefined;
  return values?.scopes ?? [];
}

function holds(caller: Caller, required: readonly string[][]): boolean {
  return (
    required.length === 0 ||
    required.some((all) => all.every((scope) => caller.scopes.has(scope as never)))
  );
}

function forbidden(field: string, required: readonly string[][], caller: Caller): ForbiddenError {
  const wanted = required.map((all) => all.map((s) => `"${s}"`).join(' and ')).join(' or ');
  return new ForbiddenError(
    `${field} requires the scope ${wanted}, which the caller (${caller.name}, ${caller.via}) does not hold.`,
  );
}

/** Who an audit event names: the caller, or whom a sign-in attempt named. */
export function actorOf(context: GatewayContext): AuditActor {
  return context.auth.actor ?? { name: context.auth.caller.name, via: context.auth.caller.via };
}

/**
 * Guards every root field: one the caller lacks the scope for fails alone with
 * FORBIDDEN before its resolver runs (so before any upstream call). Every
 * mutation field also writes one audit event, allowed or denied, when it
 * completes and before the answer goes out; while the audit log cannot be
 * written, mutations are refused with AUDIT_UNAVAILABLE and not run.
 */
export function guardRootFields(schema: GraphQLSchema, logger: Logger): GraphQLSchema {
  const roots: Array<[GraphQLObjectType | null | undefined, 'resolve' | 'subscribe']> = [
    [schema.getQueryType(), 'resolve'],
    [schema.getMutationType(), 'resolve'],
    [schema.getSubscriptionType(), 'subscribe'],
  ];
  const mutation = schema.getMutationType();
  for (const [type, hook] of roots) {
    if (type === null || type === undefined) continue;
    for (const field of Object.values(type.getFields())) {
      const required = requiredScopes(schema, field);
      const inner = (field[hook] ??
        ((source: unknown) => (source as Record<string, unknown>)[field.name])) as Resolver;
      const name = `${type.name}.${field.name}`;
      const checked: Resolver = (source, args, context, info) => {
        if (!holds(context.auth.caller, required))
          throw forbidden(name, required, context.auth.caller);
        return inner(source, args, context, info);
      };
      field[hook] = type === mutation ? audited(checked, logger) : checked;
    }
  }
  return schema;
}

function audited(resolve: Resolver, logger: Logger): Resolver {
  return async (source, args, context, info) => {
    const calls: TrailedCall[] = [];
    const recorded = auditArguments(args as Record<string, unknown>);
    const write = async (decision: 'allowed' | 'denied', outcome: string): Promise<void> => {
      const generation = generationOf(calls);
      const actor = actorOf(context);
      await context.identity.audit.write({
        time: new Date().toISOString(),
        requestId: context.call.requestId,
        actor: { ...actor, name: redactSecrets(actor.name, recorded.secrets) },
        clientAddress: context.auth.clientAddress,
        operationName: info.operation.name?.value ?? null,
        field: info.fieldName,
        arguments: recorded.arguments,
        decision,
        outcome,
        upstream: upstreamOf(calls),
        ...(generation === undefined ? {} : { generation }),
      });
    };
    if (!(await context.identity.audit.ready())) {
      // Written if it can be: a write that succeeds makes the log usable again.
      await write('denied', 'AUDIT_UNAVAILABLE').catch(() => {});
      throw new AuditLogUnavailableError();
    }
    context.trail.current = calls;
    let outcome = 'ok';
    let decision: 'allowed' | 'denied' = 'allowed';
    try {
      return await resolve(source, args, context, info);
    } catch (error) {
      outcome =
        error instanceof Error && 'extensions' in error
          ? contractCodeOf(error as never)
          : 'INTERNAL_SERVER_ERROR';
      if (error instanceof ForbiddenError && calls.length === 0) decision = 'denied';
      throw error;
    } finally {
      context.trail.current = undefined;
      await write(decision, outcome).catch((error: unknown) => {
        logger.error(
          {
            field: info.fieldName,
            requestId: context.call.requestId,
            reason: (error as Error).message,
          },
          'audit event not written: mutations are refused until the audit log can be written again',
        );
      });
    }
  };
}
