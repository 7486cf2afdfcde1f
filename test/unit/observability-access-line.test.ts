import { afterEach, describe, expect, it } from 'vitest';
import { registerSecrets } from '../../src/http/redact.ts';
import {
  accessLineFields,
  bounded,
  type AccessRecord,
} from '../../src/observability/access-line.ts';
import { createLogger, fixedShapeWriter } from '../../src/observability/logger.ts';

const full: AccessRecord = {
  requestId: 'r-1',
  clientAddress: '10.0.0.1',
  operationName: 'Q',
  operationType: 'query',
  status: 200,
  durationMs: 1.5,
  upstreamCalls: 2,
  caller: { name: 'alice', via: 'token' },
  errorCodes: ['NOT_FOUND', 'UPSTREAM_TIMEOUT'],
  events: 3,
  ended: 'completed',
};

/** The lines a logger at `level` writes for these records through the fixed-shape writer. */
function written(records: AccessRecord[], level: 'info' | 'warn' = 'info'): string[] {
  const lines: string[] = [];
  const write = fixedShapeWriter(
    createLogger(level, { write: (line: string) => void lines.push(line) }),
    'graphql request',
  );
  for (const record of records) write(accessLineFields(record));
  return lines;
}

const withoutTime = (line: string) => line.replace(/"time":\d+/, '"time":0');

let releases: Array<() => void> = [];
afterEach(() => {
  for (const release of releases) release();
  releases = [];
});

describe('the request log line', () => {
  it('has the fields in their documented order, between pino’s level, time and service and its msg', () => {
    const [line] = written([full]);
    expect(withoutTime(line ?? '')).toBe(
      '{"level":30,"time":0,"service":"vmw-graphql-gateway","requestId":"r-1","clientAddress":"10.0.0.1",' +
        '"operationName":"Q","operationType":"query","status":200,"durationMs":1.5,"upstreamCalls":2,' +
        '"caller":{"name":"alice","via":"token"},"errorCodes":["NOT_FOUND","UPSTREAM_TIMEOUT"],' +
        '"events":3,"ended":"completed","msg":"graphql request"}\n',
    );
  });

  it('is the line pino writes for the same record, byte for byte', () => {
    const records: AccessRecord[] = [
      full,
      {
        requestId: 'r-2',
        clientAddress: null,
        operationName: null,
        operationType: null,
        status: 499,
        durationMs: 0.1,
        upstreamCalls: 0,
        ended: 'client-gone',
      },
    ];
    const byPino: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void byPino.push(line) });
    for (const record of records) {
      const object = Object.fromEntries(
        Object.entries(record).filter(([, value]) => value !== undefined),
      );
      logger.info(object, 'graphql request');
    }
    expect(written(records).map(withoutTime)).toEqual(byPino.map(withoutTime));
  });

  it('writes null for a missing address, name and type, and leaves out the fields that do not apply', () => {
    const [line] = written([
      {
        requestId: 'r-3',
        clientAddress: null,
        operationName: null,
        operationType: null,
        status: 400,
        durationMs: 0.2,
        upstreamCalls: 0,
      },
    ]);
    expect(Object.keys(JSON.parse(line ?? '') as object)).toEqual([
      'level',
      'time',
      'service',
      'requestId',
      'clientAddress',
      'operationName',
      'operationType',
      'status',
      'durationMs',
      'upstreamCalls',
      'msg',
    ]);
    expect(line).toContain('"clientAddress":null,"operationName":null,"operationType":null');
  });

  it('keeps a hostile name one parseable line: quotes, backslashes, newlines, U+2028/U+2029 and lone surrogates', () => {
    const hostile = 'a"b\\c\nd\re\u2028f\u2029g\ud800h\udc00i\u0000"}\n{"level":60';
    const [line = ''] = written([
      { ...full, operationName: hostile, caller: { name: hostile, via: 'jwt' } },
    ]);
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(line).not.toMatch(/[\u2028\u2029\r]/);
    expect(line.isWellFormed()).toBe(true);
    const parsed = JSON.parse(line) as { operationName: string; caller: { name: string } };
    expect(parsed.operationName).toBe(hostile);
    expect(parsed.caller.name).toBe(hostile);
  });

  it('cuts a 10 KB operation name and caller name to 200 characters, saying so', () => {
    const long = 'x'.repeat(10_000);
    const [line = ''] = written([
      { ...full, operationName: long, caller: { name: long, via: 'jwt' } },
    ]);
    const parsed = JSON.parse(line) as { operationName: string; caller: { name: string } };
    expect(parsed.operationName).toBe(`${'x'.repeat(200)}…(10000 chars)`);
    expect(parsed.operationName).toBe(bounded(long));
    expect(parsed.caller.name).toBe(bounded(long));
    expect(line.length).toBeLessThan(1000);
  });

  it('takes a configured secret out of the line when a client sends it as the operation name or caller name', () => {
    const secret = 'Sup3r-"secret"-pass';
    releases.push(registerSecrets([secret]));
    const [line = ''] = written([
      { ...full, operationName: `before ${secret} after`, caller: { name: secret, via: 'token' } },
    ]);
    expect(line).not.toContain('Sup3r');
    const parsed = JSON.parse(line) as { operationName: string; caller: { name: string } };
    expect(parsed.operationName).toBe('before [redacted] after');
    expect(parsed.caller.name).toBe('[redacted]');
  });

  it('is not written when the level is above info', () => {
    expect(written([full], 'warn')).toEqual([]);
  });
});
