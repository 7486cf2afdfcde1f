import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config.ts';
import { redactSecrets } from '../http/redact.ts';

export type { Logger };

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
  // benchmark 0.1-0.2 ms of CPU per operation. main.ts flushes before exiting.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}

/** Yoga's own log lines, as structured lines of the gateway's logger. */
export function yogaLogging(logger: Logger) {
  return {
    debug: (...args: unknown[]) => logger.debug({ yoga: args.map(String) }, 'yoga'),
    info: (...args: unknown[]) => logger.info({ yoga: args.map(String) }, 'yoga'),
    warn: (...args: unknown[]) => logger.warn({ yoga: args.map(String) }, 'yoga'),
    error: (...args: unknown[]) => logger.error({ yoga: args.map(describe) }, 'yoga'),
  };
}

function describe(value: unknown): string {
  return value instanceof Error ? `${value.name}: ${value.message}` : String(value);
}
