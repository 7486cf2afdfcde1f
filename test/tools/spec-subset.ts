/**
 * Cuts a subset out of a Swagger 2.0 file: the operations named, and every
 * definition they reference, followed transitively. Run by hand when a
 * simulator starts using another route (never by tests):
 *
 *   node test/tools/spec-subset.ts <in.json> <out.json> "GET /iaas/api/about" "POST /iaas/api/login" …
 *
 * An operation given as a bare path ("/iaas/api/about") keeps every method of
 * that path. Keys are kept in the source's order so that the subset diffs
 * cleanly against the original; `info`, `host`, `basePath`, `schemes`,
 * `produces`, `consumes` and `securityDefinitions` are copied as they are,
 * `tags` only when an operation kept uses them.
 */
import { readFileSync, writeFileSync } from 'node:fs';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = Record<string, Json>;

const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch']);

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every `#/definitions/X` reached from `value`. */
function refsIn(value: Json, found: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) refsIn(item, found);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$ref' && typeof inner === 'string') {
      const match = /^#\/definitions\/(.+)$/.exec(inner);
      if (match === null) throw new Error(`unsupported reference ${inner}`);
      found.add(
        decodeURIComponent(match[1] ?? '')
          .replaceAll('~1', '/')
          .replaceAll('~0', '~'),
      );
    } else refsIn(inner, found);
  }
}

export function specSubset(spec: JsonObject, operations: readonly string[]): JsonObject {
  const paths = spec['paths'];
  const definitions = spec['definitions'];
  if (!isObject(paths) || !isObject(definitions)) throw new Error('not a Swagger 2.0 file');
  const wanted = new Map<string, Set<string> | 'all'>();
  for (const operation of operations) {
    const match = /^(?:([A-Za-z]+)\s+)?(\/\S*)$/.exec(operation.trim());
    if (match === null) throw new Error(`cannot read operation "${operation}"`);
    const [, method, path = ''] = match;
    if (!isObject(paths[path])) throw new Error(`no path ${path} in the file`);
    if (method === undefined) {
      wanted.set(path, 'all');
      continue;
    }
    const lower = method.toLowerCase();
    if (!isObject(paths[path][lower])) throw new Error(`no ${method} ${path}`);
    const known = wanted.get(path);
    if (known === 'all') continue;
    wanted.set(path, new Set([...(known ?? []), lower]));
  }

  const keptPaths: JsonObject = {};
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(paths)) {
    const want = wanted.get(path);
    if (want === undefined || !isObject(item)) continue;
    const kept: JsonObject = {};
    for (const [key, value] of Object.entries(item)) {
      if (methods.has(key) && want !== 'all' && !want.has(key)) continue;
      kept[key] = value;
      if (methods.has(key) && isObject(value) && Array.isArray(value['tags']))
        for (const tag of value['tags']) if (typeof tag === 'string') tags.add(tag);
    }
    keptPaths[path] = kept;
  }

  const needed = new Set<string>();
  refsIn(keptPaths, needed);
  const queue = [...needed];
  while (queue.length > 0) {
    const name = queue.pop() ?? '';
    const definition = definitions[name];
    if (definition === undefined) throw new Error(`definition ${name} is referenced but absent`);
    const inner = new Set<string>();
    refsIn(definition, inner);
    for (const next of inner)
      if (!needed.has(next)) {
        needed.add(next);
        queue.push(next);
      }
  }

  const out: JsonObject = {};
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'paths') out[key] = keptPaths;
    else if (key === 'definitions')
      out[key] = Object.fromEntries(
        Object.entries(definitions).filter(([name]) => needed.has(name)),
      );
    else if (key === 'tags' && Array.isArray(value))
      out[key] = value.filter(
        (tag) => isObject(tag) && typeof tag['name'] === 'string' && tags.has(tag['name']),
      );
    else out[key] = value;
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const [input, output, ...operations] = process.argv.slice(2);
  if (input === undefined || output === undefined || operations.length === 0) {
    console.error('usage: node test/tools/spec-subset.ts <in.json> <out.json> "METHOD /path"…');
    process.exit(2);
  }
  const spec = JSON.parse(readFileSync(input, 'utf8')) as JsonObject;
  writeFileSync(output, `${JSON.stringify(specSubset(spec, operations), null, 2)}\n`);
}
