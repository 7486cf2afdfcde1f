export interface GraphqlAnswer {
  status: number;
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
  /** Wall time of the request as the client saw it. */
  ms: number;
}

/** One GraphQL POST from the bench process (loopback only). */
export async function gql(
  origin: string,
  query: string,
  headers: Record<string, string> = {},
): Promise<GraphqlAnswer> {
  const started = performance.now();
  const response = await fetch(`${origin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as Omit<GraphqlAnswer, 'status' | 'ms'>;
  return { status: response.status, ...body, ms: performance.now() - started };
}

/** Throws unless the answer has data and no error. */
export function expectData(answer: GraphqlAnswer, what: string): Record<string, unknown> {
  if (answer.status !== 200 || answer.errors !== undefined || answer.data == null) {
    throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.errors ?? answer.data)}`);
  }
  return answer.data;
}
