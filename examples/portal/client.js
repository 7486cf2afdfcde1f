/**
 * A minimal GraphQL client over the gateway's public API, same origin:
 * queries and mutations as `POST /graphql` (JSON), subscriptions as
 * Server-Sent Events on the same path (`POST` with `Accept: text/event-stream`,
 * read from the response stream: EventSource can only GET).
 *
 * A signed-in person is known by the gateway's `gateway_session` cookie, which
 * is HttpOnly: no script here reads or writes it; every fetch is same-origin
 * with `credentials: 'same-origin'`, so the browser sends it along. Every
 * request carries `x-graphql-csrf: 1`, the CSRF-prevention header the gateway
 * asks of GET and multipart requests (plain JSON POSTs do not need it today; it
 * is sent so that the portal keeps working whatever the gateway's CSRF rules
 * become), and `Authorization: Bearer <token>` when the user gave a gateway
 * token instead of signing in.
 */

/**
 * @template R, V
 * @typedef {import('./generated/graphql.ts').TypedDocumentString<R, V>} Document
 */

/** @typedef {{ message: string, path?: ReadonlyArray<string | number>, extensions?: { code?: string, fields?: ReadonlyArray<{ name: string, message: string }> } }} GraphQLErrorEntry */

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

/**
 * An operation that answered errors; `codes` are their `extensions.code`,
 * `status` the HTTP status of the answer.
 */
export class GraphQLRequestError extends Error {
  /**
   * @param {ReadonlyArray<GraphQLErrorEntry>} errors
   * @param {number} status
   */
  constructor(errors, status) {
    super(errors.map((error) => error.message).join('\n'));
    this.name = 'GraphQLRequestError';
    this.errors = errors;
    this.status = status;
    this.codes = errors.map((error) => error.extensions?.code ?? 'UNKNOWN');
  }
}

/** @type {(error: GraphQLRequestError) => void} */
let sessionEndedListener = () => {};

/**
 * Calls `listener` whenever an answer says the caller is no longer who they
 * were: HTTP 401 (the session ended, a credential is required) or an
 * UNAUTHENTICATED error (vRA refused the user's own token, which ends the
 * session). The operation still rejects as it would.
 * @param {(error: GraphQLRequestError) => void} listener
 */
export function onSessionEnded(listener) {
  sessionEndedListener = listener;
}

/**
 * The fetch options every operation shares; the session cookie goes along
 * because the request is same-origin (`credentials: 'same-origin'`).
 * @param {string} accept
 * @param {unknown} document
 * @param {unknown} variables
 * @returns {RequestInit}
 */
function init(accept, document, variables) {
  return {
    method: 'POST',
    credentials: 'same-origin',
    cache: 'no-store',
    headers: headers(accept),
    body: body(document, variables),
  };
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
  try {
    /** @type {unknown} */
    const answer = await response.json();
    return /** @type {Answer} */ (answer);
  } catch {
    // not GraphQL (a proxy's error page, say): the status is all there is to tell
    return { errors: [{ message: `The gateway answered ${response.status}.` }] };
  }
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
 * @param {number} status
 * @param {boolean} signingIn the operation signs in: UNAUTHENTICATED means wrong credentials
 * @returns {unknown}
 */
function dataOf(answer, status, signingIn = false) {
  if (answer.errors !== undefined && answer.errors.length > 0) {
    const error = new GraphQLRequestError(answer.errors, status);
    if (!signingIn && (status === 401 || error.codes.includes('UNAUTHENTICATED'))) {
      sessionEndedListener(error);
    }
    throw error;
  }
  if (status === 401) {
    const error = new GraphQLRequestError([{ message: 'The gateway answered 401.' }], status);
    if (!signingIn) sessionEndedListener(error);
    throw error;
  }
  return answer.data;
}

/**
 * Runs a query or mutation; rejects with GraphQLRequestError when it answers
 * errors. `signingIn`: the operation is the sign-in itself, whose
 * UNAUTHENTICATED means wrong credentials, not an ended session.
 * @template R, V
 * @param {Document<R, V>} document
 * @param {V} variables
 * @param {{ signingIn?: boolean }} [options]
 * @returns {Promise<R>}
 */
export async function request(document, variables, options = {}) {
  const response = await fetch(
    '/graphql',
    init('application/graphql-response+json, application/json', document, variables),
  );
  return /** @type {R} */ (
    dataOf(await answerOf(response), response.status, options.signingIn === true)
  );
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
    ...init('text/event-stream', document, variables),
    signal: controller.signal,
  });
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream') || response.body === null) {
    dataOf(await answerOf(response), response.status);
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
          yield /** @type {R} */ (dataOf(parseAnswer(data), response.status));
        }
      }
    }
  } finally {
    controller.abort();
  }
}
