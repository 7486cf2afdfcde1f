import { type DocumentNode, Kind, OperationTypeNode, parse } from 'graphql';

/** Root fields anyone may select, credential or not: how a person signs in and learns who they are. */
export const openRootFields: ReadonlySet<string> = new Set([
  'signIn',
  'signOut',
  'viewer',
  '__typename',
]);

/** The GraphQL parameters of a request, read from a clone (the body stays yoga's to read). */
async function paramsOf(request: Request, url: URL): Promise<unknown> {
  if (request.method === 'GET') {
    return {
      query: url.searchParams.get('query'),
      operationName: url.searchParams.get('operationName'),
    };
  }
  const type = request.headers.get('content-type') ?? '';
  if (request.method !== 'POST' || !type.toLowerCase().startsWith('application/json'))
    return undefined;
  try {
    return (await request.clone().json()) as unknown;
  } catch {
    return undefined;
  }
}

function selectsOnlyOpenFields(document: DocumentNode, operationName: unknown): boolean {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation =
    typeof operationName === 'string'
      ? operations.find((o) => o.name?.value === operationName)
      : operations.length === 1
        ? operations[0]
        : undefined;
  if (operation === undefined || operation.operation === OperationTypeNode.SUBSCRIPTION)
    return false;
  return operation.selectionSet.selections.every(
    (s) => s.kind === Kind.FIELD && s.directives?.length === 0 && openRootFields.has(s.name.value),
  );
}

/**
 * True when a request runs one operation that selects only open root fields
 * (`signIn`, `signOut`, `viewer`), as plain fields. A caller without a
 * credential may send only that where a credential is required.
 */
export async function runsOnlyOpenFields(request: Request, url: URL): Promise<boolean> {
  const params = await paramsOf(request, url);
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  const { query, operationName } = params as Record<string, unknown>;
  if (typeof query !== 'string' || query.length > 4096) return false;
  try {
    return selectsOnlyOpenFields(parse(query, { maxTokens: 500 }), operationName);
  } catch {
    return false;
  }
}
