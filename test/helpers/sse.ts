/** A GraphQL subscription over Server-Sent Events, read one event at a time. */
export interface SseEvent {
  event: string;
  data: any;
}

export class SseSubscription {
  readonly status: number;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #controller: AbortController;
  readonly #refusal: string;
  #buffer = '';

  private constructor(
    status: number,
    reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
    controller: AbortController,
    refusal: string,
  ) {
    this.status = status;
    this.#reader = reader;
    this.#controller = controller;
    this.#refusal = refusal;
  }

  /**
   * POSTs the operation with `Accept: text/event-stream` to `<baseUrl>/graphql`.
   * A refused subscription (not an event stream) keeps its status and body.
   */
  static open(
    baseUrl: string,
    query: string,
    variables: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<SseSubscription> {
    return SseSubscription.request(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ query, variables }),
    });
  }

  /** Any request answered with an event stream (or refused: then its status and body are kept). */
  static async request(url: string, init: RequestInit): Promise<SseSubscription> {
    const controller = new AbortController();
    const response = await fetch(url, { ...init, signal: controller.signal });
    const isStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
    if (!isStream || response.body === null) {
      const refusal = await response.text();
      return new SseSubscription(response.status, undefined, controller, refusal);
    }
    return new SseSubscription(response.status, response.body.getReader(), controller, '');
  }

  /** The body of a refused subscription, parsed. */
  refusal(): any {
    return JSON.parse(this.#refusal);
  }

  /** The next `next` or `complete` event (keep-alive comments skipped); null at the end of the stream. */
  async next(): Promise<SseEvent | null> {
    if (this.#reader === undefined) throw new Error(`not a stream: ${this.#refusal}`);
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const lines = block.split('\n').filter((line) => !line.startsWith(':'));
        if (lines.length === 0) continue;
        const field = (name: string) =>
          lines
            .find((line) => line.startsWith(`${name}:`))
            ?.slice(name.length + 1)
            .trim();
        const data = field('data');
        return { event: field('event') ?? 'message', data: data ? JSON.parse(data) : null };
      }
      const { value, done } = await this.#reader.read();
      if (done) return null;
      this.#buffer += Buffer.from(value).toString('utf8');
    }
  }

  close(): void {
    this.#controller.abort();
  }
}
