import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  GraphQLError,
  Kind,
  parse,
  print,
  type DocumentNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** The allow-list file is unusable (the configuration reports it as PERSISTED_OPERATIONS_FILE's fault). */
export class PersistedOperationsFileError extends Error {
  constructor(problem: string) {
    super(problem);
    this.name = 'PersistedOperationsFileError';
  }
}
const hashPattern = /^[0-9a-f]{64}$/;

/** The allow-list: documents by the SHA-256 (hex) of their exact text, and their printed forms. */
export interface PersistedOperations {
  readonly byHash: ReadonlyMap<string, string>;
  /** `print(parse(document))` of every listed document: the same operation written differently. */
  readonly printed: ReadonlySet<string>;
}

/** SHA-256 of a document's exact text (UTF-8), lower-case hex: its id in the allow-list. */
export function documentHash(document: string): string {
  return createHash('sha256').update(document, 'utf8').digest('hex');
}

/**
 * Reads the allow-list file: a JSON object `{ "<sha256 hex>": "<document>" }`
 * (what `npm run persisted:build` writes; Relay and GraphQL Code Generator
 * write the same shape), or an Apollo persisted query manifest
 * (`{ "format": "apollo-persisted-query-manifest", "operations": [{ "id", "body" }] }`).
 * Every id must be the SHA-256 of its document's exact text, and every
 * document must parse.
 */
export function loadPersistedOperations(file: string): PersistedOperations {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new PersistedOperationsFileError(`must name a JSON file ("${file}" is not JSON)`);
  }
  const entries = entriesOf(json, file);
  const byHash = new Map<string, string>();
  const printed = new Set<string>();
  for (const [hash, document] of entries) {
    if (
      !hashPattern.test(hash) ||
      typeof document !== 'string' ||
      documentHash(document) !== hash
    ) {
      throw new PersistedOperationsFileError(
        `lists "${hash.slice(0, 80)}", which is not the SHA-256 (lower-case hex) of its document, in "${file}"`,
      );
    }
    try {
      printed.add(print(parse(document)));
    } catch {
      throw new PersistedOperationsFileError(
        `lists a document that does not parse (${hash}) in "${file}"`,
      );
    }
    byHash.set(hash, document);
  }
  return { byHash, printed };
}

function entriesOf(json: unknown, file: string): Array<[string, unknown]> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new PersistedOperationsFileError(`must hold a JSON object ("${file}")`);
  }
  const record = json as Record<string, unknown>;
  if (record['format'] === 'apollo-persisted-query-manifest') {
    const operations = record['operations'];
    if (!Array.isArray(operations)) {
      throw new PersistedOperationsFileError(`holds a manifest without "operations" ("${file}")`);
    }
    return operations.map((operation: unknown) => {
      const o = (typeof operation === 'object' && operation !== null ? operation : {}) as Record<
        string,
        unknown
      >;
      return [String(o['id']), o['body']];
    });
  }
  return Object.entries(record);
}

const refusal = (message: string): GraphQLError =>
  new GraphQLError(message, {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { spec: true, status: 400 } },
  });

/**
 * Allow-list mode: only listed operations run. An operation is listed when
 * its document's SHA-256 is in the list, when it is the same operation as a
 * listed one written differently (whitespace, comments), or when the client
 * sends only `extensions.persistedQuery.sha256Hash` (Apollo's persisted
 * queries) of a listed document. Introspection-only documents stay allowed
 * (GraphiQL's docs and completion, code generators): the schema is not a
 * secret. Anything else is refused with GRAPHQL_VALIDATION_FAILED before it
 * is parsed by the server or reaches an upstream.
 */
export function persistedOperations(allowList: PersistedOperations, maxTokens: number): Plugin {
  return {
    onParams({ params, setParams }) {
      const query = typeof params.query === 'string' ? params.query : undefined;
      if (query === undefined) {
        const hash = persistedHash(params.extensions);
        if (hash === undefined) return;
        const document = allowList.byHash.get(hash.toLowerCase());
        if (document === undefined) {
          throw refusal(`The operation is not in the allow-list (hash ${hash.slice(0, 64)}).`);
        }
        setParams({ ...params, query: document });
        return;
      }
      if (allowList.byHash.has(documentHash(query))) return;
      const document = parseOrUndefined(query, maxTokens);
      if (document !== undefined) {
        if (allowList.printed.has(print(document))) return;
        if (introspectionOnly(document)) return;
      }
      throw refusal(
        'The operation is not in the allow-list: this gateway runs only its persisted operations (PERSISTED_OPERATIONS_FILE).',
      );
    },
  };
}

function persistedHash(extensions: unknown): string | undefined {
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const persisted = (extensions as Record<string, unknown>)['persistedQuery'];
  if (typeof persisted !== 'object' || persisted === null) return undefined;
  const hash = (persisted as Record<string, unknown>)['sha256Hash'];
  return typeof hash === 'string' ? hash : undefined;
}

function parseOrUndefined(query: string, maxTokens: number): DocumentNode | undefined {
  try {
    return parse(query, { maxTokens, noLocation: true });
  } catch {
    return undefined;
  }
}

const metaFields = new Set(['__schema', '__type', '__typename']);

/**
 * True when every operation of the document selects only `__schema`, `__type`
 * and `__typename`. Each fragment is judged once (a fragment spread many
 * times in many fragments costs no more than one spelled out); one in a cycle
 * is not introspection.
 */
function introspectionOnly(document: DocumentNode): boolean {
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition.selectionSet);
    }
  }
  const judged = new Map<string, boolean>();
  const judging = new Set<string>();
  const fragmentOnlyMeta = (name: string): boolean => {
    const known = judged.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    if (fragment === undefined || judging.has(name)) return false;
    judging.add(name);
    const only = onlyMeta(fragment);
    judging.delete(name);
    judged.set(name, only);
    return only;
  };
  const onlyMeta = (set: SelectionSetNode): boolean =>
    set.selections.every((selection) => {
      if (selection.kind === Kind.FIELD) return metaFields.has(selection.name.value);
      if (selection.kind === Kind.INLINE_FRAGMENT) return onlyMeta(selection.selectionSet);
      return fragmentOnlyMeta(selection.name.value);
    });
  let operations = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) {
      operations += 1;
      if (!onlyMeta(definition.selectionSet)) return false;
    } else if (definition.kind !== Kind.FRAGMENT_DEFINITION) {
      return false;
    }
  }
  return operations > 0;
}
