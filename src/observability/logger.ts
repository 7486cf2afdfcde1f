import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config.ts';

export type { Logger };

/**
 * Structured JSON logs. Nothing here logs a header, a body or a URL with
 * credentials; the redaction list is a second line of defence.
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
  };
  // Asynchronous writes by default: a synchronous write per request cost the
  // benchmark 0.1-0.2 ms of CPU per operation. main.ts flushes before exiting.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
