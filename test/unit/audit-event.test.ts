import { describe, expect, it } from 'vitest';
import { auditArguments, generationOf, upstreamOf } from '../../src/audit/audit-event.ts';
import type { AuditEvent, AuditLog } from '../../src/audit/audit-log.ts';
import { auditRefusedMutation } from '../../src/audit/refused-request.ts';
import type { TrailedCall } from '../../src/http/upstream-http.ts';

describe('audit event arguments', () => {
  it('keeps an uploaded file by its name, type and size, whichever Blob class made it', () => {
    const global = new File([new Uint8Array(10)], 'a.package', { type: 'application/zip' });
    // yoga's multipart File is a ponyfill, not an instance of the global Blob; its bytes must not be walked
    const ponyfill = {
      name: 'b.package',
      type: 'application/zip',
      size: 26_000_000,
      bytes: new Uint8Array(26_000_000),
      arrayBuffer: () => Promise.resolve(new ArrayBuffer(0)),
    };
    expect(
      auditArguments({ file: global, other: ponyfill, raw: new Uint8Array(3) }).arguments,
    ).toEqual({
      file: { file: 'a.package', type: 'application/zip', size: 10 },
      other: { file: 'b.package', type: 'application/zip', size: 26_000_000 },
      raw: { bytes: 3 },
    });
  });

  it('redacts secret-named arguments, and their values wherever else they appear', () => {
    const recorded = auditArguments({ username: 'hunter2-user', password: 'hunter2-user' });
    expect(recorded.arguments).toEqual({ username: '[redacted]', password: '[REDACTED]' });
  });

  it('takes the generation a firewall change was made against and the one it produced', () => {
    const calls = [
      { service: 'nsx', method: 'GET', route: 'r', status: 200, etag: '"10"' },
      { service: 'nsx', method: 'POST', route: 'r', status: 412, ifMatch: '"10"' },
      { service: 'nsx', method: 'GET', route: 'r', status: 200, etag: '"11"' },
      { service: 'nsx', method: 'POST', route: 'r', status: 204, ifMatch: '"11"' },
      { service: 'nsx', method: 'GET', route: 'r', status: 200, etag: '"12"' },
    ] as const;
    expect(generationOf(calls)).toEqual({ before: '11', after: '12' });
    expect(generationOf(calls.slice(0, 1))).toBeUndefined();
  });
});

describe('audit event arguments, case by case', () => {
  it('redacts every secret-named argument, in any case, at any depth, but keeps null and absent ones', () => {
    const recorded = auditArguments({
      Password: 's3cret-one',
      nested: { clientSecret: 's3cret-two', list: [{ apiToken: 's3cret-three' }] },
      credentials: { user: 'u', pass: 'p' },
      AUTHORIZATION: 'Bearer x',
      cookie: 42,
      token: null,
      secret: undefined,
      plain: 'mentions s3cret-one and s3cret-three',
    });
    expect(recorded.arguments).toEqual({
      Password: '[REDACTED]',
      nested: { clientSecret: '[REDACTED]', list: [{ apiToken: '[REDACTED]' }] },
      credentials: '[REDACTED]',
      AUTHORIZATION: '[REDACTED]',
      cookie: '[REDACTED]',
      token: null,
      secret: undefined,
      plain: 'mentions [redacted] and [redacted]',
    });
    expect(recorded.secrets).toEqual(['s3cret-one', 's3cret-two', 's3cret-three', 'Bearer x']);
  });

  it('takes as secrets only strings of 1 to 256 characters, and looks inside objects under secret names', () => {
    const long = 'x'.repeat(257);
    const edge = 'y'.repeat(256);
    const recorded = auditArguments({
      password: '',
      token: long,
      secret: edge,
      credentials: { inner: 'in-credentials', password: 'pw-inside' },
      other: 7,
      flag: true,
    });
    expect(recorded.secrets).toEqual([edge, 'pw-inside']);
    expect(recorded.arguments).toMatchObject({ other: 7, flag: true, password: '[REDACTED]' });
  });

  it('keeps scalars, arrays and objects, and describes bytes by their length', () => {
    const buffer = new ArrayBuffer(5);
    expect(
      auditArguments({
        n: 1,
        b: false,
        z: null,
        list: ['a', 2, [3]],
        bytes: buffer,
        view: new DataView(buffer, 1, 2),
        deep: { a: { b: 'c' } },
      }).arguments,
    ).toEqual({
      n: 1,
      b: false,
      z: null,
      list: ['a', 2, [3]],
      bytes: { bytes: 5 },
      view: { bytes: 2 },
      deep: { a: { b: 'c' } },
    });
  });

  it('keeps a file without a name or type as null, redacting a secret in its name', () => {
    const nameless = { size: 3, arrayBuffer: () => Promise.resolve(new ArrayBuffer(3)) };
    const named = {
      name: 'hunter22.package',
      type: 7,
      size: 3,
      arrayBuffer: () => Promise.resolve(new ArrayBuffer(3)),
    };
    expect(
      auditArguments({ password: 'hunter22', files: [nameless, named] }).arguments['files'],
    ).toEqual([
      { file: null, type: null, size: 3 },
      { file: '[redacted].package', type: null, size: 3 },
    ]);
    // something with a size that cannot be read is an object like any other
    expect(auditArguments({ o: { size: 3, arrayBuffer: 'no' } }).arguments).toEqual({
      o: { size: 3, arrayBuffer: 'no' },
    });
    expect(
      auditArguments({ password: 'hunter22', o: { size: '3', arrayBuffer: () => 0 } }).secrets,
    ).toEqual(['hunter22']);
  });
});

describe('the upstream calls and generation of an event', () => {
  const call = (over: Partial<TrailedCall>): TrailedCall => ({
    service: 'nsx',
    method: 'POST',
    route: '/r',
    status: 200,
    ...over,
  });

  it('lists each call by service, method, route and status only', () => {
    expect(upstreamOf([call({ ifMatch: '"1"', etag: '"2"' }), call({ status: null })])).toEqual([
      { service: 'nsx', method: 'POST', route: '/r', status: 200 },
      { service: 'nsx', method: 'POST', route: '/r', status: null },
    ]);
  });

  it('takes the last successful write that sent an If-Match, not a read, a failure or a 3xx', () => {
    expect(
      generationOf([
        call({ ifMatch: '"1"', etag: '"2"' }),
        call({ method: 'GET', ifMatch: '"8"', etag: '"9"' }),
        call({ ifMatch: '"5"', status: 300 }),
        call({ ifMatch: '"6"', status: null }),
        call({ ifMatch: '"7"', status: 500 }),
      ]),
    ).toEqual({ before: '1', after: '9' });
    expect(generationOf([call({ ifMatch: '"1"', status: 299, etag: '"2"' })])).toEqual({
      before: '1',
      after: '2',
    });
  });

  it('takes the last ETag from that write on, weak or strong, or none', () => {
    expect(
      generationOf([
        call({ method: 'GET', etag: '"0"' }),
        call({ ifMatch: 'W/"3"' }),
        call({ method: 'GET', etag: 'W/"4"' }),
        call({ method: 'GET' }),
      ]),
    ).toEqual({ before: '3', after: '4' });
    expect(generationOf([call({ method: 'GET', etag: '"0"' }), call({ ifMatch: '3' })])).toEqual({
      before: '3',
      after: null,
    });
    expect(generationOf([])).toBeUndefined();
    expect(generationOf([call({})])).toBeUndefined();
  });
});

describe('the denied events of a mutation refused for want of a credential', () => {
  const operation = {
    name: 'Edit',
    type: 'mutation' as never,
    fields: [
      { name: 'edit', arguments: { id: 'r1', password: 'hunter22' } },
      { name: 'run', arguments: {} },
    ],
  };

  it('writes one denied UNAUTHENTICATED event per root field, by an anonymous actor', async () => {
    const events: AuditEvent[] = [];
    const audit = {
      write: (event: AuditEvent) => {
        events.push(event);
        return Promise.resolve();
      },
    } as unknown as AuditLog;
    await auditRefusedMutation(audit, operation, { requestId: 'q1', clientAddress: '192.0.2.1' });
    expect(events.map(({ time: _time, ...rest }) => rest)).toEqual([
      {
        requestId: 'q1',
        actor: { name: 'anonymous', via: 'anonymous' },
        clientAddress: '192.0.2.1',
        operationName: 'Edit',
        field: 'edit',
        arguments: { id: 'r1', password: '[REDACTED]' },
        stage: 'completed',
        decision: 'denied',
        outcome: 'UNAUTHENTICATED',
        upstream: [],
      },
      {
        requestId: 'q1',
        actor: { name: 'anonymous', via: 'anonymous' },
        clientAddress: '192.0.2.1',
        operationName: 'Edit',
        field: 'run',
        arguments: {},
        stage: 'completed',
        decision: 'denied',
        outcome: 'UNAUTHENTICATED',
        upstream: [],
      },
    ]);
    expect(Number.isNaN(Date.parse(events[0]?.time ?? ''))).toBe(false);
  });

  it('goes on with the next field when a write fails, and never rejects', async () => {
    const fields: string[] = [];
    const audit = {
      write: (event: AuditEvent) => {
        fields.push(event.field);
        return Promise.reject(new Error('disk full'));
      },
    } as unknown as AuditLog;
    await expect(
      auditRefusedMutation(audit, operation, { requestId: 'q2', clientAddress: null }),
    ).resolves.toBeUndefined();
    expect(fields).toEqual(['edit', 'run']);
  });
});

describe('audit events, at their edges', () => {
  const call = (over: Partial<TrailedCall>): TrailedCall => ({
    service: 'nsx',
    method: 'POST',
    route: '/r',
    status: 200,
    ...over,
  });

  it('takes as a file only what has a numeric size and an arrayBuffer function', () => {
    const arrayBuffer = () => Promise.resolve(new ArrayBuffer(0));
    const recorded = auditArguments({ o: { size: '3', arrayBuffer } }).arguments;
    expect(recorded['o']).toEqual({ size: '3', arrayBuffer });
  });

  it('takes no generation from a write that sent no If-Match, nor from a failed one', () => {
    expect(generationOf([call({ ifMatch: '"1"', etag: '"2"' }), call({ method: 'PUT' })])).toEqual({
      before: '1',
      after: '2',
    });
    expect(
      generationOf([call({ method: 'GET' }), call({ ifMatch: '"x"', status: 500 })]),
    ).toBeUndefined();
  });

  it('takes off the quotes of a whole generation only', () => {
    expect(generationOf([call({ ifMatch: 'x"3"', etag: '"4"x' })])).toEqual({
      before: 'x"3"',
      after: '"4"x',
    });
  });
});
