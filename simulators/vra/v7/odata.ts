/**
 * The one OData `$filter` form the simulator understands: `field eq 'text'`
 * (a `/` path reaches nested fields, `''` is a quote inside the text), the
 * form vRA documents and the gateway sends. Anything else (other operators,
 * `and`/`or`, parentheses, unknown fields) is refused with vRA's 400, so a
 * gateway that starts sending another form finds out here first.
 */

export type Predicate = (item: unknown) => boolean;

export class FilterSyntaxError extends Error {}

const comparison = /^\s*([A-Za-z@][\w/@.]*)\s+eq\s+'((?:[^']|'')*)'\s*$/;

function read(item: unknown, path: string): unknown {
  let value: unknown = item;
  for (const key of path.split('/')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Compiles a `$filter`; `fields` lists the paths that may be filtered on. */
export function compileFilter(source: string, fields: readonly string[]): Predicate {
  const match = comparison.exec(source);
  const [, field, quoted] = match ?? [];
  if (field === undefined || quoted === undefined) {
    throw new FilterSyntaxError("only field eq 'text' is supported");
  }
  if (!fields.includes(field)) throw new FilterSyntaxError(`cannot filter on "${field}"`);
  const text = quoted.replaceAll("''", "'");
  return (item) => read(item, field) === text;
}
