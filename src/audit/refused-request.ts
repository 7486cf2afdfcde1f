import type { RequestedOperation } from '../auth/requested-operation.ts';
import { auditArguments } from './audit-event.ts';
import type { AuditLog } from './audit-log.ts';

/**
 * The denied events of a mutation refused before it could run (no accepted
 * credential): one per root field, as if each had been refused on its own.
 * Written before the refusal is answered; a log that cannot be written
 * changes nothing about the refusal.
 */
export async function auditRefusedMutation(
  audit: AuditLog,
  operation: RequestedOperation,
  request: { requestId: string; clientAddress: string | null },
): Promise<void> {
  for (const field of operation.fields) {
    await audit
      .write({
        time: new Date().toISOString(),
        requestId: request.requestId,
        actor: { name: 'anonymous', via: 'anonymous' },
        clientAddress: request.clientAddress,
        operationName: operation.name,
        field: field.name,
        arguments: auditArguments(field.arguments).arguments,
        stage: 'completed',
        decision: 'denied',
        outcome: 'UNAUTHENTICATED',
        upstream: [],
      })
      .catch(() => {});
  }
}
