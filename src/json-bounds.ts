/**
 * The bounds of every JSON value that enters or leaves the gateway (the JSON
 * scalar's inputs, workflow outputs, firewall rule parts). Below them any
 * consumer may recurse safely (graphql-js, JSON.stringify, the XML builder)
 * and one value cannot fill a response; above them the value is refused. Both
 * are measured without recursion, so a hostile value cannot overflow the check.
 */
import { UpstreamBadResponseError, type UpstreamService } from './errors.ts';

export const jsonLimits = {
  /** Nesting of arrays and objects: `[]` is 1, `[[1]]` is 2. */
  maxDepth: 64,
  /** Characters of the value written as JSON (approximately: escapes are not counted). */
  maxLength: 8 * 1024 * 1024,
} as const;

/** What makes `value` exceed the bounds, or undefined when it is within them. */
export function jsonBoundsProblem(value: unknown): string | undefined {
  const { maxDepth, maxLength } = jsonLimits;
  let length = 0;
  const pending: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, depth } = next;
    length += scalarLength(node);
    if (typeof node === 'object' && node !== null) {
      if (depth >= maxDepth) return `a JSON value nested deeper than ${maxDepth} levels`;
      const isArray = Array.isArray(node);
      const entries = isArray ? (node as unknown[]) : Object.entries(node);
      length += 2 + entries.length;
      if (length > maxLength) return `a JSON value larger than ${maxLength} characters`;
      for (const entry of entries) {
        if (isArray) pending.push({ node: entry, depth: depth + 1 });
        else {
          const [key, member] = entry as [string, unknown];
          length += key.length + 3;
          pending.push({ node: member, depth: depth + 1 });
        }
      }
    }
    if (length > maxLength) return `a JSON value larger than ${maxLength} characters`;
  }
  return undefined;
}

function scalarLength(node: unknown): number {
  if (typeof node === 'string') return node.length + 2;
  if (typeof node === 'number' || typeof node === 'bigint') return 24;
  if (typeof node === 'boolean') return 5;
  return node === null ? 4 : 0;
}

/** Objects already measured by `upstreamJson`, so that the JSON scalar does not measure them again. */
const measured = new WeakSet<object>();

/** True when `value` was measured by `upstreamJson` and found within the bounds. */
export function isMeasured(value: unknown): boolean {
  return typeof value === 'object' && value !== null && measured.has(value);
}

/** `value`, unless it exceeds the bounds: then UPSTREAM_BAD_RESPONSE of `service`. */
export function upstreamJson(service: UpstreamService, value: unknown): unknown {
  const problem = jsonBoundsProblem(value);
  if (problem !== undefined) throw new UpstreamBadResponseError(service, problem);
  if (typeof value === 'object' && value !== null) measured.add(value);
  return value;
}
