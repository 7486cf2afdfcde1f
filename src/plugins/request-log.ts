import { getOperationAST, type DocumentNode, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { requestInfo } from '../request-info.ts';

/**
 * One log line and one metric per GraphQL request: request id (also sent back
 * as `X-Request-Id` and to every upstream), operation name and type, duration,
 * upstream call count and error codes. Never headers, variables or bodies.
 */
export function requestLog(logger: Logger, metrics: Metrics): Plugin {
  return {
    onRequest({ request }) {
      requestInfo(request);
    },
    onParams({ request, params }) {
      requestInfo(request).operationName = params.operationName ?? undefined;
    },
    onExecute({ args }) {
      const info = requestInfo((args.contextValue as { request: Request }).request);
      const operation = getOperationAST(
        args.document as DocumentNode,
        args.operationName as string | undefined,
      );
      info.operationType = operation?.operation;
      info.operationName ??= operation?.name?.value;
      return {
        onExecuteDone({ result }) {
          const errors = (result as { errors?: readonly GraphQLError[] }).errors ?? [];
          for (const error of errors) {
            const code = error.extensions['code'];
            info.errorCodes.push(typeof code === 'string' ? code : 'UNKNOWN');
          }
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
      const seconds = (performance.now() - info.startedAt) / 1000;
      const failed = response.status >= 400 || info.errorCodes.length > 0;
      metrics.observeOperation(
        info.operationType ?? 'none',
        info.operationName ?? 'anonymous',
        failed ? 'error' : 'ok',
        seconds,
      );
      logger.info(
        {
          requestId: info.requestId,
          operationName: info.operationName ?? null,
          operationType: info.operationType ?? null,
          status: response.status,
          durationMs: Math.round(seconds * 10000) / 10,
          upstreamCalls: info.upstreamCalls,
          ...(info.errorCodes.length > 0 ? { errorCodes: [...new Set(info.errorCodes)] } : {}),
        },
        'graphql request',
      );
    },
  };
}
