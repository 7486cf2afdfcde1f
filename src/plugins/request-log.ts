import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Caller } from '../auth/caller.ts';
import { requestAuth } from '../auth/request-auth.ts';
import { accessLineFields } from '../observability/access-line.ts';
import { fixedShapeWriter, type Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { otherOperations, unnamedOperation } from '../observability/operation-names.ts';
import { requestInfo, type RequestInfo } from '../request-info.ts';
import { contractCodeOf } from './error-codes.ts';

interface OperationArgs {
  document: unknown;
  operationName?: unknown;
  contextValue: unknown;
}

/** What the log line of a subscription adds: how it ended and what it sent. */
interface StreamState {
  events: number;
  ended: 'completed' | 'client-gone' | undefined;
  /** Set once the response has started: writes the record when the stream ends. */
  finish: (() => void) | undefined;
}

const streams = new WeakMap<RequestInfo, StreamState>();

/** The status recorded for a request whose client went away before its answer. */
export const clientClosedStatus = 499;

export { bounded } from '../observability/access-line.ts';

function describeOperation(args: OperationArgs): RequestInfo {
  const context = args.contextValue as { request: Request };
  const info = requestInfo(context.request);
  const operation = getOperationAST(
    args.document as DocumentNode,
    args.operationName as string | undefined,
  );
  info.operationType = operation?.operation;
  info.operationName ??= operation?.name?.value;
  return info;
}

function collectCodes(info: RequestInfo, result: unknown): void {
  for (const error of (result as ExecutionResult).errors ?? []) {
    info.errorCodes.push(contractCodeOf(error));
  }
}

/**
 * What a request's metric is labelled with: its operation's name only when the
 * operation ran for a caller who showed a credential (or for anyone while no
 * credential is configured); the name of a request refused before it ran, or
 * of an unauthenticated one, is made up by whoever sent it.
 */
function metricName(
  info: RequestInfo,
  caller: Caller | undefined,
  credentialsRequired: boolean,
): string {
  if (info.operationName === undefined) return unnamedOperation;
  const ran = info.operationType !== undefined;
  const identified = caller !== undefined && (caller.via !== 'anonymous' || !credentialsRequired);
  return ran && identified ? info.operationName : otherOperations;
}

/**
 * One log line and one metric per GraphQL request: request id (also sent back
 * as `X-Request-Id` and to every upstream), operation name and type, duration,
 * upstream call count and error codes. Never headers, variables or bodies.
 * A subscription is recorded when it ends, with its whole life: duration,
 * events sent, error codes, the upstream calls made for it, and whether it
 * completed or its client went away. Without a logger or metrics (a
 * benchmark's composition, see `optionalFeatures`), that part is left out.
 */
export function requestLog(
  logger: Logger | undefined,
  metrics: Metrics | undefined,
  credentialsRequired: boolean,
): Plugin {
  const writeLine = logger === undefined ? undefined : fixedShapeWriter(logger, 'graphql request');
  const record = (info: RequestInfo, status: number, caller: Caller | undefined): void => {
    const seconds = (performance.now() - info.startedAt) / 1000;
    const gone = status === clientClosedStatus;
    const failed = status >= 400 || info.errorCodes.length > 0;
    const stream = streams.get(info);
    metrics?.observeOperation(
      info.operationType ?? 'none',
      metricName(info, caller, credentialsRequired),
      gone ? 'client-gone' : failed ? 'error' : 'ok',
      seconds,
    );
    if (writeLine === undefined) return;
    writeLine(
      accessLineFields({
        requestId: info.requestId,
        clientAddress: info.clientAddress,
        operationName: info.operationName ?? null,
        operationType: info.operationType ?? null,
        status,
        durationMs: Math.round(seconds * 10000) / 10,
        upstreamCalls: info.upstreamCalls,
        caller: caller === undefined ? undefined : { name: caller.name, via: caller.via },
        // A client that went away gets no answer: what the gateway made of its abort is no error.
        errorCodes: info.errorCodes.length > 0 && !gone ? [...new Set(info.errorCodes)] : undefined,
        events: stream?.events,
        // nginx's 499: the client closed the request before its answer.
        ended: stream === undefined ? (gone ? 'client-gone' : undefined) : stream.ended,
      }),
    );
  };
  return {
    onRequest({ request }) {
      requestInfo(request);
    },
    onParams({ request, params }) {
      // a client may send any JSON as operationName (refused later with 400): only text is a name
      const name: unknown = params.operationName;
      requestInfo(request).operationName = typeof name === 'string' ? name : undefined;
    },
    onExecute({ args }) {
      describeOperation(args);
    },
    // Every answer that is not a stream (a stream's events are counted as they go):
    // executed operations, and requests refused before or instead of running.
    onResultProcess({ request, result }) {
      if (isAsyncIterable(result)) return;
      const info = requestInfo(request);
      for (const each of Array.isArray(result) ? result : [result]) collectCodes(info, each);
    },
    onSubscribe({ args }) {
      const info = describeOperation(args);
      const { call } = args.contextValue as { call?: { signal: AbortSignal } };
      return {
        onSubscribeResult({ result }) {
          if (!isAsyncIterable(result)) return undefined;
          const stream: StreamState = { events: 0, ended: undefined, finish: undefined };
          streams.set(info, stream);
          return {
            onNext({ result: event }) {
              stream.events += 1;
              collectCodes(info, event);
            },
            onEnd() {
              stream.ended = call?.signal.aborted === true ? 'client-gone' : 'completed';
              stream.finish?.();
            },
          };
        },
      };
    },
    onResponse({ request, response }) {
      const info = requestInfo(request);
      response.headers.set('x-request-id', info.requestId);
      if (
        info.operationType === undefined &&
        !new URL(request.url).pathname.startsWith('/graphql')
      ) {
        return;
      }
      const stream = streams.get(info);
      const { caller } = requestAuth(request) ?? {};
      if (stream !== undefined && stream.ended === undefined) {
        stream.finish = () => record(info, response.status, caller);
        return;
      }
      record(info, request.signal.aborted ? clientClosedStatus : response.status, caller);
    },
  };
}
