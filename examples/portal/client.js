/**
 * A minimal GraphQL client over the gateway's public API, same origin:
 * queries and mutations as `POST /graphql` (JSON), subscriptions as
 * Server-Sent Events on the same path (`POST` with `Accept: text/event-stream`,
 * read from the response stream: EventSource can only GET).
 *
 * Every request carries `x-graphql-csrf: 1`, the CSRF-prevention header the
 * gateway asks of GET and multipart requests (plain JSON POSTs do not need it
 * today; it is sent so that the portal keeps working whatever the gateway's
 * CSRF rules become), and `Authorization: Bearer <token>` when the user gave
 * a gateway token.
 */

/**
 * @template R, V
 * @typedef {import('./generated/graphql.ts').TypedDocumentString<R, V>} Document
 */

/** @typedef {{ message: string, path?: ReadonlyArray<string | number>, extensions?: { code?: string } }} GraphQLErrorEntry */

const tokenKey = 'portal.gatewayToken';

/** The gateway token the user gave (kept for the browser tab only). */
export function gatewayToken() {
  return sessionStorage.getItem(tokenKey) ?? '';
}

/** @param {string} token */
export function setGatewayToken(token) {
  if (token === '') sessionStorage.removeItem(tokenKey);
  else sessionStorage.setItem(tokenKey, token);
}

/** An operation that answered errors; `codes` are their `extensions.code`. */
export class GraphQLRequestError extends Error {
  /** @param {ReadonlyArray<GraphQLErrorEntry>} errors */
  constructor(errors) {
    super(errors.map((error) => error.message).join('\n'));
    this.name = 'GraphQLRequestError';
    this.errors = errors;
    this.codes = errors.map((error) => error.extensions?.code ?? 'UNKNOWN');
  }
}

/** @param {string} accept */
function headers(accept) {
  /** @type {Record<string, string>} */
  const result = {
    'content-type': 'application/json',
    accept,
    'x-graphql-csrf': '1',
  };
  const token = gatewayToken();
  if (token !== '') result['authorization'] = `Bearer ${token}`;
  return result;
}

/**
 * @param {unknown} document
 * @param {unknown} variables
 */
function body(document, variables) {
  return JSON.stringify({ query: String(document), variables: variables ?? {} });
}

/** @typedef {{ data?: unknown, errors?: ReadonlyArray<GraphQLErrorEntry> }} Answer */

/**
 * @param {Response} response
 * @returns {Promise<Answer>}
 */
async function answerOf(response) {
  /** @type {unknown} */
  const answer = await response.json();
  return /** @type {Answer} */ (answer);
}

/**
 * @param {string} text
 * @returns {Answer}
 */
function parseAnswer(text) {
  /** @type {unknown} */
  const answer = JSON.parse(text);
  return /** @type {Answer} */ (answer);
}

/**
 * @param {Answer} answer
 * @returns {unknown}
 */
function dataOf(answer) {
  if (answer.errors !== undefined && answer.errors.length > 0) {
    throw new GraphQLRequestError(answer.errors);
  }
  return answer.data;
}

/**
 * Runs a query or mutation; rejects with GraphQLRequestError when it answers errors.
 * @template R, V
 * @param {Document<R, V>} document
 * @param {V} variables
 * @returns {Promise<R>}
 */
export async function request(document, variables) {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: headers('application/graphql-response+json, application/json'),
    body: body(document, variables),
  });
  return /** @type {R} */ (dataOf(await answerOf(response)));
}

/**
 * Runs a subscription; yields every `next` event's data until `complete`.
 * Leaving the loop (or aborting `signal`) closes the stream.
 * @template R, V
 * @param {Document<R, V>} document
 * @param {V} variables
 * @param {AbortSignal} [signal]
 * @returns {AsyncGenerator<R, void, void>}
 */
export async function* subscribe(document, variables, signal) {
  const controller = new AbortController();
  signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: headers('text/event-stream'),
    body: body(document, variables),
    signal: controller.signal,
  });
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream') || response.body === null) {
    dataOf(await answerOf(response));
    throw new Error(`The subscription was refused (${response.status}).`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        const event = /^event: (.*)$/m.exec(block)?.[1];
        if (event === 'complete') return;
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (event === 'next' && data !== '') {
          yield /** @type {R} */ (dataOf(parseAnswer(data)));
        }
      }
    }
  } finally {
    controller.abort();
  }
}
