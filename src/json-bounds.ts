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
  const tooLong = `a JSON value larger than ${maxLength} characters`;
  let length = 0;
  // Two parallel stacks (no object per member): this walk runs on every JSON value written.
  const nodes: unknown[] = [value];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop() ?? 0;
    if (typeof node !== 'object' || node === null) {
      length += scalarLength(node);
      if (length > maxLength) return tooLong;
      continue;
    }
    if (depth >= maxDepth) return `a JSON value nested deeper than ${maxDepth} levels`;
    if (Array.isArray(node)) {
      length += 2 + node.length;
      if (length > maxLength) return tooLong;
      for (const member of node as unknown[]) {
        nodes.push(member);
        depths.push(depth + 1);
      }
    } else {
      const keys = Object.keys(node);
      length += 2 + keys.length;
      for (const key of keys) {
        length += key.length + 3;
        if (length > maxLength) return tooLong;
        nodes.push((node as Record<string, unknown>)[key]);
        depths.push(depth + 1);
      }
    }
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
