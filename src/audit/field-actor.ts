import type { GraphQLResolveInfo } from 'graphql';
import type { AuditActor } from './audit-log.ts';

/**
 * Whom one field's audit event names when not the caller: a sign-in names
 * the person signing in. Kept per field run (its resolve info), never per
 * request or operation, so no other field of the same operation or batch
 * is audited under that name.
 */
const actors = new WeakMap<GraphQLResolveInfo, AuditActor>();

export function nameFieldActor(info: GraphQLResolveInfo, actor: AuditActor): void {
  actors.set(info, actor);
}

export function fieldActor(info: GraphQLResolveInfo): AuditActor | undefined {
  return actors.get(info);
}
