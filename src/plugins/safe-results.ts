import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../observability/logger.ts';

/**
 * Every result is written with a stringify that cannot throw. JSON.stringify
 * throws on a value too deep for the stack or too long for a string; in yoga's
 * SSE and multipart writers that throw escapes as an unhandled rejection and
 * ends the process, in the plain JSON writer it becomes a bare 500. The JSON
 * scalar keeps such values out of results (json-bounds.ts); should one get
 * through anyway, only that result is replaced by an error, and the stream,
 * the other responses and the process go on.
 */
export function safeResults(logger: Logger): Plugin {
  const unwritable = JSON.stringify({
    data: null,
    errors: [
      {
        message: 'The answer could not be written: an upstream value is too large or too deep.',
        extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
      },
    ],
  });
  const stringify = (result: unknown): string => {
    try {
      return JSON.stringify(result);
    } catch (error) {
      logger.error({ error: describe(error) }, 'a result could not be written');
      return unwritable;
    }
  };
  // Yoga's writers call `result.stringify` when a result has one.
  const writable = <T>(result: T): T => {
    if (typeof result === 'object' && result !== null) {
      Reflect.defineProperty(result, 'stringify', { value: stringify, configurable: true });
    }
    return result;
  };
  return {
    onResultProcess(payload) {
      const { result } = payload;
      if (Array.isArray(result)) result.forEach(writable);
      else if (Symbol.asyncIterator in result) payload.setResult(mapResults(result, writable));
      else writable(result);
    },
  };
}

/** The stream with each result passed through `map`; ending it early ends the source. */
function mapResults(
  source: AsyncIterable<ExecutionResult>,
  map: (result: ExecutionResult) => ExecutionResult,
): AsyncIterableIterator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  return {
    async next() {
      const step = await iterator.next();
      return step.done === true ? step : { done: false, value: map(step.value) };
    },
    async return(value?: unknown) {
      return (await iterator.return?.(value)) ?? { done: true, value: undefined };
    },
    async throw(error?: unknown) {
      if (iterator.throw === undefined) throw error;
      return iterator.throw(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
