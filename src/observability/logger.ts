import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config.ts';
import { redactSecrets } from '../http/redact.ts';
import { BatchedStream } from './batched-stream.ts';

export type { Logger };

/** How long a line on stdout may wait to be written with the ones after it. */
const logBatchMs = 100;

/**
 * Structured JSON logs. Nothing here logs a header, a body or a URL with
 * credentials; the redaction list is a second line of defence, and a third
 * takes every secret the process knows out of each line, in any encoding.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'vmw-graphql-gateway' },
    redact: {
      paths: [
        'password',
        '*.password',
        'authorization',
        '*.authorization',
        'token',
        '*.token',
        'headers',
      ],
      censor: '[redacted]',
    },
    hooks: { streamWrite: (line: string) => redactSecrets(line) },
  };
  // Asynchronous writes by default: a synchronous write per request cost the
  // benchmark 0.1-0.2 ms of CPU per operation; and batched, one write per
  // 100 ms or 64 KiB (docs/performance.md, "The request log at its price").
  // serve.ts flushes before exiting.
  return pino(
    options,
    destination ?? new BatchedStream(pino.destination({ dest: 1, sync: false }), logBatchMs),
  );
}

const symbols = pino.symbols;

/** A pino logger's own part (pino.symbols are its published keys). */
function own(logger: Logger, key: symbol): unknown {
  return (logger as unknown as Record<symbol, unknown>)[key];
}

/**
 * A writer of `info` lines whose fields the caller has already turned into
 * JSON (without braces, see access-line.ts): the line pino would write
 * (level, time, the logger's bindings, the fields, the message), through the
 * logger's own last pass (the known-secrets scan), without pino's generic
 * walk of an object and its redaction paths.
 */
export function fixedShapeWriter(logger: Logger, msg: string): (fields: string) => void {
  const level = logger.levels.values['info'] ?? 30;
  const messageKey = own(logger, symbols.messageKeySym) as string;
  const tail = `,${JSON.stringify(messageKey)}:${JSON.stringify(msg)}}\n`;
  return (fields) => {
    if (!logger.isLevelEnabled('info')) return;
    const stream = own(logger, symbols.streamSym) as DestinationStream & Record<symbol, unknown>;
    if (stream[symbols.needsMetadataGsym] === true) {
      // a multistream wants the record as well as the line: the ordinary way
      logger.info(JSON.parse(`{${fields}}`) as object, msg);
      return;
    }
    const head = (own(logger, symbols.lsCacheSym) as Record<number, string>)[level] ?? '{';
    const time = (own(logger, symbols.timeSym) as () => string)();
    const line = `${head}${time}${own(logger, symbols.chindingsSym) as string},${fields}${tail}`;
    const hooks = own(logger, symbols.hooksSym) as { streamWrite?: (line: string) => string };
    stream.write(hooks.streamWrite === undefined ? line : hooks.streamWrite(line));
  };
}

/** Yoga's own log lines, as structured lines of the gateway's logger. */
export function yogaLogging(logger: Logger) {
  return {
    debug: (...args: unknown[]) => logger.debug({ yoga: args.map(String) }, 'yoga'),
    info: (...args: unknown[]) => logger.info({ yoga: args.map(String) }, 'yoga'),
    warn: (...args: unknown[]) => logger.warn({ yoga: args.map(String) }, 'yoga'),
    error: (...args: unknown[]) => {
      if (args.some(clientGone)) {
        logger.debug({ yoga: args.map(describe) }, 'client closed the request');
        return;
      }
      logger.error({ yoga: args.map(describe) }, 'yoga');
    },
  };
}

/**
 * An error that only says the client went away (the work for it was
 * stopped): yoga logs it as unexpected, but it is no fault of the gateway.
 */
function clientGone(value: unknown): boolean {
  for (let error = value; error instanceof Error;) {
    if (error.name === 'ClientGoneError') return true;
    error = (error as { originalError?: unknown }).originalError ?? error.cause;
  }
  return false;
}

function describe(value: unknown): string {
  return value instanceof Error ? `${value.name}: ${value.message}` : String(value);
}
