import type { Span } from '@opentelemetry/api';
import { SpanStatusCode } from '@opentelemetry/api';
import { getOperationAST, type ExecutionArgs, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { redactedException, type Tracing } from '../observability/tracing.ts';
import { requestInfo } from '../request-info.ts';

interface Result {
  errors?: readonly GraphQLError[];
}

/**
 * A span per GraphQL operation (named after the operation, else its type),
 * the parent of every upstream call its resolvers make. A subscription's span
 * lasts as long as the subscription. Operations refused before they run
 * (parse, validation, limits) make no span.
 */
export function tracingPlugin(tracing: Tracing): Plugin {
  const start = (args: ExecutionArgs): Span => {
    const { request } = args.contextValue as { request: Request };
    const operation = getOperationAST(args.document, args.operationName);
    return tracing.startOperation({
      type: operation?.operation ?? 'query',
      name: operation?.name?.value ?? undefined,
      requestId: requestInfo(request).requestId,
      headers: request.headers,
    });
  };
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const span = start(args);
      setExecuteFn((executeArgs) =>
        tracing.within(span, (): unknown => executeFn(executeArgs) as unknown),
      );
      return {
        onExecuteDone({ result }) {
          if (isAsyncIterable(result)) {
            return {
              onNext: ({ result: next }) => recordErrors(span, next),
              onEnd: () => span.end(),
            };
          }
          recordErrors(span, result);
          span.end();
          return undefined;
        },
      };
    },
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const span = start(args);
      setSubscribeFn((subscribeArgs) =>
        tracing.within(span, (): unknown => subscribeFn(subscribeArgs) as unknown),
      );
      return {
        onSubscribeResult({ result, setResult }) {
          if (!isAsyncIterable(result)) {
            recordErrors(span, result);
            span.end();
            return undefined;
          }
          setResult(bound(result, (fn) => tracing.within(span, fn)));
          return {
            onNext: ({ result: next }) => recordErrors(span, next),
            onEnd: () => span.end(),
          };
        },
        onSubscribeError({ error }) {
          span.recordException(redactedException(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
  };
}

function recordErrors(span: Span, result: Result): void {
  const errors = result.errors ?? [];
  if (errors.length === 0) return;
  const codes = errors.map((e) => {
    const code = (e.extensions as Record<string, unknown> | undefined)?.['code'];
    return typeof code === 'string' ? code : 'UNKNOWN';
  });
  span.setAttribute('graphql.error.codes', [...new Set(codes)]);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** The same stream, each step run within the operation's trace (each event's resolvers call upstreams). */
function bound<T>(
  source: AsyncIterable<T>,
  within: <R>(fn: () => R) => R,
): AsyncIterableIterator<T> {
  const iterator = source[Symbol.asyncIterator]();
  const bound: AsyncIterableIterator<T> = {
    next: (...args: [] | [unknown]) => within(() => iterator.next(...args)),
    return: (value?: unknown) =>
      within(
        () =>
          iterator.return?.(value) ??
          Promise.resolve({ done: true, value } as IteratorReturnResult<T>),
      ),
    throw: (error?: unknown) =>
      within(() => iterator.throw?.(error) ?? Promise.reject(error as Error)),
    [Symbol.asyncIterator]: () => bound,
  };
  return bound;
}
