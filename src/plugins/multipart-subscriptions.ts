import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const boundary = 'graphql';
/** An empty part every few seconds keeps proxies from closing a quiet subscription. */
const heartbeatMs = 5_000;
const encoder = new TextEncoder();
const part = (json: string): Uint8Array =>
  encoder.encode(
    `\r\n--${boundary}\r\ncontent-type: application/json; charset=utf-8\r\n\r\n${json}`,
  );

/**
 * Subscriptions in the multipart HTTP protocol of Apollo Client's HttpLink
 * (`Accept: multipart/mixed;…;subscriptionSpec=1.0`), which yoga does not
 * serve (it answers 406): each event is a part `{"payload": <result>}`, an
 * empty part `{}` is a heartbeat, and the closing boundary ends the stream.
 * Every other client keeps yoga's own answers (SSE, JSON, incremental multipart).
 */
export function multipartSubscriptions(): Plugin {
  return {
    onResultProcess(hook) {
      const { request, result } = hook;
      if (!(Symbol.asyncIterator in result)) return;
      const accept = request.headers.get('accept') ?? '';
      if (!/multipart\/mixed[^,]*;\s*subscriptionSpec\s*=\s*"?1\.0/i.test(accept)) return;
      hook.setResultProcessor(
        (events) => respond(events as AsyncIterable<ExecutionResult>, request.signal),
        'multipart/mixed',
      );
    },
  };
}

function respond(events: AsyncIterable<ExecutionResult>, signal: AbortSignal): Response {
  const iterator: AsyncIterator<ExecutionResult, unknown> = events[Symbol.asyncIterator]();
  let heartbeat: NodeJS.Timeout | undefined;
  const stop = (): void => {
    clearInterval(heartbeat);
    void iterator.return?.();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      heartbeat = setInterval(() => controller.enqueue(part('{}')), heartbeatMs);
      signal.addEventListener('abort', stop, { once: true });
    },
    async pull(controller) {
      const next: IteratorResult<ExecutionResult, unknown> = await iterator.next();
      if (next.done === true) {
        clearInterval(heartbeat);
        controller.enqueue(encoder.encode(`\r\n--${boundary}--\r\n`));
        controller.close();
        return;
      }
      controller.enqueue(part(payload(next.value)));
    },
    cancel: stop,
  });
  return new Response(body, {
    headers: {
      'content-type': `multipart/mixed;boundary="${boundary}";subscriptionSpec="1.0"`,
      'cache-control': 'no-cache',
    },
  });
}

/** `{"payload": result}` as yoga itself would send the result: without the `http` and `unexpected` extensions it keeps for itself. */
function payload(result: ExecutionResult): string {
  if (result.errors === undefined) return JSON.stringify({ payload: result });
  const errors = result.errors.map((error) => {
    const extensions = Object.fromEntries(
      Object.entries(
        (error.extensions as Record<string, unknown> | undefined) ?? {
          code: 'INTERNAL_SERVER_ERROR',
        },
      ).filter(([key]) => key !== 'http' && key !== 'unexpected'),
    );
    // A bare Error (no GraphQLError) is written masked, as the field's unexpected failure.
    const written =
      error instanceof GraphQLError ? error.toJSON() : { message: 'Unexpected error.' };
    return { ...written, extensions };
  });
  return JSON.stringify({ payload: { ...result, errors } });
}
