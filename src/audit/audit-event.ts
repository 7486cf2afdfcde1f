import type { TrailedCall } from '../http/upstream-http.ts';
import { redactSecrets } from '../http/redact.ts';
import type { AuditCompletedEvent, AuditUpstreamCall } from './audit-log.ts';

/** Argument names whose values are never written down, whatever they hold. */
const secretName = /password|secret|token|credential|authorization|cookie/i;

/**
 * A mutation's arguments as the audit trail keeps them: secrets redacted as
 * in every log (and by name), an uploaded file by its name, type and size.
 */
export function auditArguments(args: Record<string, unknown>): {
  arguments: Record<string, unknown>;
  /** The values of secret-named arguments: redacted wherever else they turn up (a password typed as a user name). */
  secrets: string[];
} {
  const secrets = secretValues(args);
  return { arguments: clean(args, secrets) as Record<string, unknown>, secrets };
}

/** Longer values are redacted by their name only: every form of a secret goes into one pattern. */
const maxSecretLength = 256;

function secretValues(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(secretValues);
  if (typeof value !== 'object' || value === null || isFileLike(value)) return [];
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    if (!secretName.test(key) || typeof inner !== 'string') return secretValues(inner);
    return inner === '' || inner.length > maxSecretLength ? [] : [inner];
  });
}

/** An uploaded file, whichever Blob class made it (yoga's File is not always the global one). */
function isFileLike(value: object): value is { name?: unknown; type?: unknown; size: number } {
  const candidate = value as { size?: unknown; arrayBuffer?: unknown };
  return typeof candidate.size === 'number' && typeof candidate.arrayBuffer === 'function';
}

function clean(value: unknown, extra: readonly string[]): unknown {
  if (typeof value === 'string') return redactSecrets(value, extra);
  if (typeof value !== 'object' || value === null) return value;
  if (isFileLike(value)) {
    const name = typeof value.name === 'string' ? redactSecrets(value.name, extra) : null;
    return {
      file: name,
      type: typeof value.type === 'string' ? value.type : null,
      size: value.size,
    };
  }
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return { bytes: value.byteLength };
  if (Array.isArray(value)) return value.map((item) => clean(item, extra));
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      secretName.test(key) && inner !== null && inner !== undefined
        ? '[REDACTED]'
        : clean(inner, extra),
    ]),
  );
}

const unquoted = (value: string): string => value.replace(/^(?:W\/)?"(.*)"$/, '$1');

/**
 * The generation numbers a firewall change went from and to: the If-Match
 * of its last successful write, and the last ETag seen from that write on
 * (its answer's, or the read-back's). Undefined for a change that sent none.
 */
export function generationOf(calls: readonly TrailedCall[]): AuditCompletedEvent['generation'] {
  let write = -1;
  for (let i = 0; i < calls.length; i += 1) {
    const call = calls[i];
    const ok = call?.status !== null && call?.status !== undefined && call.status < 300;
    if (call?.ifMatch !== undefined && call.method !== 'GET' && ok) write = i;
  }
  const sent = calls[write]?.ifMatch;
  if (sent === undefined) return undefined;
  let after: string | null = null;
  for (const call of calls.slice(write)) if (call.etag !== undefined) after = unquoted(call.etag);
  return { before: unquoted(sent), after };
}

export function upstreamOf(calls: readonly TrailedCall[]): AuditUpstreamCall[] {
  return calls.map(({ service, method, route, status }) => ({ service, method, route, status }));
}
