import {
  type DocumentNode,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  parse,
  type SelectionSetNode,
  valueFromASTUntyped,
} from 'graphql';

/** Root fields anyone may select, credential or not: how a person signs in and learns who they are. */
export const openRootFields: ReadonlySet<string> = new Set([
  'signIn',
  'signOut',
  'viewer',
  '__typename',
]);

/** What a request asks, read before anything runs: for callers that may not run it. */
export interface RequestedOperation {
  name: string | null;
  type: OperationTypeNode;
  /** Its root fields with their arguments (variables filled in, untyped). */
  fields: Array<{ name: string; arguments: Record<string, unknown> }>;
}

/** The GraphQL parameters of a request, read from a clone (the body stays yoga's to read). */
async function paramsOf(request: Request, url: URL): Promise<unknown> {
  if (request.method === 'GET') {
    return {
      query: url.searchParams.get('query'),
      operationName: url.searchParams.get('operationName'),
    };
  }
  const type = request.headers.get('content-type') ?? '';
  if (request.method !== 'POST' || !type.toLowerCase().startsWith('application/json')) {
    return undefined;
  }
  try {
    return (await request.clone().json()) as unknown;
  } catch {
    return undefined;
  }
}

function chosen(document: DocumentNode, name: unknown): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (typeof name === 'string') return operations.find((o) => o.name?.value === name);
  return operations.length === 1 ? operations[0] : undefined;
}

function rootFields(
  set: SelectionSetNode,
  variables: Record<string, unknown>,
): RequestedOperation['fields'] | undefined {
  const fields: RequestedOperation['fields'] = [];
  for (const selection of set.selections) {
    if (selection.directives?.length !== 0) return undefined;
    if (selection.kind === Kind.FRAGMENT_SPREAD) return undefined;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const inner = rootFields(selection.selectionSet, variables);
      if (inner === undefined) return undefined;
      fields.push(...inner);
      continue;
    }
    const args = Object.fromEntries(
      (selection.arguments ?? []).map((a) => [
        a.name.value,
        valueFromASTUntyped(a.value, variables),
      ]),
    );
    fields.push({ name: selection.name.value, arguments: args });
  }
  return fields;
}

/**
 * The one operation a request runs, when it can be told simply: a single
 * JSON or GET request whose root fields are plain fields (no directive, no
 * fragment spread). Undefined otherwise, and for anything that does not parse.
 */
export async function requestedOperation(
  request: Request,
  url: URL,
): Promise<RequestedOperation | undefined> {
  const params = await paramsOf(request, url);
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  const { query, operationName, variables } = params as Record<string, unknown>;
  if (typeof query !== 'string' || query.length > 65_536) return undefined;
  try {
    const operation = chosen(parse(query, { maxTokens: 3000 }), operationName);
    if (operation === undefined) return undefined;
    const values =
      typeof variables === 'object' && variables !== null && !Array.isArray(variables)
        ? (variables as Record<string, unknown>)
        : {};
    const fields = rootFields(operation.selectionSet, values);
    if (fields === undefined) return undefined;
    return { name: operation.name?.value ?? null, type: operation.operation, fields };
  } catch {
    return undefined;
  }
}

/** True for a query or mutation that selects only the open root fields (`signIn`, `signOut`, `viewer`). */
export function onlyOpenFields(operation: RequestedOperation | undefined): boolean {
  return (
    operation !== undefined &&
    operation.type !== OperationTypeNode.SUBSCRIPTION &&
    operation.fields.every((field) => openRootFields.has(field.name))
  );
}
