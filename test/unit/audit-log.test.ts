import { EventEmitter } from 'node:events';
import {
  mkdir,
  mkdtemp,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AuditLog,
  AuditUnavailableError,
  type AuditCompletedEvent,
  type AuditEvent,
} from '../../src/audit/audit-log.ts';

const event = (overrides: Partial<AuditCompletedEvent> = {}): AuditCompletedEvent => ({
  time: '2025-01-01T00:00:00.000Z',
  requestId: 'req-1',
  actor: { name: 'alice', via: 'session' },
  clientAddress: '10.0.0.1',
  operationName: 'StartWorkflow',
  field: 'startWorkflow',
  arguments: { id: 'wf-1' },
  stage: 'completed',
  decision: 'allowed',
  outcome: 'ok',
  upstream: [{ service: 'vro', method: 'POST', route: '/workflows/{id}/executions', status: 202 }],
  ...overrides,
});

const lines = async (path: string): Promise<unknown[]> => {
  const text = await readFile(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
};

/** A stdout stand-in whose write callback fails for the calls listed in `failOn`. */
class FakeStdout extends EventEmitter {
  readonly chunks: string[] = [];
  readonly failOn: number[];
  calls = 0;
  constructor(failOn: number[] = []) {
    super();
    this.failOn = failOn;
  }
  write(chunk: string, callback: (error?: Error | null) => void): boolean {
    const call = this.calls++;
    if (this.failOn.includes(call)) {
      setImmediate(() => callback(new Error('EPIPE')));
    } else {
      this.chunks.push(chunk);
      setImmediate(() => callback(null));
    }
    return true;
  }
}

describe('AuditLog to a file', () => {
  let dir: string;
  const logs: AuditLog[] = [];
  const audit = (file: string): AuditLog => {
    const log = new AuditLog({ file });
    logs.push(log);
    return log;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-log-'));
  });
  afterEach(async () => {
    await Promise.all(logs.splice(0).map((log) => log.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('appends one JSON object per line, in order, under 50 concurrent writes', async () => {
    const path = join(dir, 'audit.log');
    const log = audit(path);
    const events = Array.from({ length: 50 }, (_, i) =>
      event({
        requestId: `req-${i}`,
        arguments: { note: `line\nbreak ${i}`, big: 'x'.repeat(i * 500) },
      }),
    );
    await Promise.all(events.map((e) => log.write(e)));
    expect(await lines(path)).toEqual(events);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('appends to an existing file rather than truncating it', async () => {
    const path = join(dir, 'audit.log');
    await writeFile(path, '{"earlier":true}\n');
    const log = audit(path);
    await log.write(event());
    expect(await lines(path)).toEqual([{ earlier: true }, event()]);
  });

  it('leaves out a generation that is null or undefined and keeps a given one', async () => {
    const path = join(dir, 'audit.log');
    const log = audit(path);
    const generation = { before: 'g1', after: 'g2' };
    await log.write({ ...event(), generation: null } as unknown as AuditEvent);
    await log.write({ ...event(), generation: undefined } as unknown as AuditEvent);
    await log.write(event({ generation }));
    const [first, second, third] = await lines(path);
    expect(first).not.toHaveProperty('generation');
    expect(second).not.toHaveProperty('generation');
    expect(third).toHaveProperty('generation', generation);
  });

  it('is unavailable while its directory is missing and recovers once the directory exists', async () => {
    const path = join(dir, 'missing', 'audit.log');
    const log = audit(path);
    expect(await log.ready()).toBe(false);
    await expect(log.write(event())).rejects.toBeInstanceOf(AuditUnavailableError);
    expect(log.available).toBe(false);

    await mkdir(join(dir, 'missing'));
    expect(await log.ready()).toBe(true);
    await log.write(event());
    expect(log.available).toBe(true);
    expect(await lines(path)).toEqual([event()]);
  });

  it('marks itself unavailable when a write to the open file fails, and is not ready though the file opens again', async () => {
    // /dev/full opens fine and fails every write with ENOSPC.
    const log = audit('/dev/full');
    expect(await log.ready()).toBe(true);
    await expect(log.write(event())).rejects.toBeInstanceOf(AuditUnavailableError);
    expect(log.available).toBe(false);
    expect(await log.ready()).toBe(false);
    await expect(log.write(event())).rejects.toBeInstanceOf(AuditUnavailableError);
    expect(await log.ready()).toBe(false);
  });

  it('writes to a new file at its path once the file was renamed (logrotate), losing no line', async () => {
    const path = join(dir, 'audit.log');
    const log = audit(path);
    await log.write(event({ requestId: 'before' }));
    await rename(path, `${path}.1`);
    await log.write(event({ requestId: 'after' }));
    await rename(path, `${path}.2`);
    // logrotate's `create`: the new file is there before the next line
    await writeFile(path, '', { mode: 0o600 });
    await log.write(event({ requestId: 'created' }));
    await log.write(event({ requestId: 'later' }));
    expect(await lines(`${path}.1`)).toEqual([event({ requestId: 'before' })]);
    expect(await lines(`${path}.2`)).toEqual([event({ requestId: 'after' })]);
    expect(await lines(path)).toEqual([
      event({ requestId: 'created' }),
      event({ requestId: 'later' }),
    ]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('writes to a new file at its path once the file was removed', async () => {
    const path = join(dir, 'audit.log');
    const log = audit(path);
    await log.write(event({ requestId: 'gone' }));
    await unlink(path);
    await log.write(event({ requestId: 'new' }));
    expect(await lines(path)).toEqual([event({ requestId: 'new' })]);
  });

  it('fails the first write after its path is repointed at a full disk, and takes lines again once repointed back', async () => {
    const real = join(dir, 'real.log');
    const path = join(dir, 'audit.log');
    await symlink(real, path);
    const log = audit(path);
    await log.write(event({ requestId: 'one' }));
    await unlink(path);
    await symlink('/dev/full', path);
    await expect(log.write(event({ requestId: 'lost' }))).rejects.toBeInstanceOf(
      AuditUnavailableError,
    );
    expect(await log.ready()).toBe(false);
    await unlink(path);
    await symlink(real, path);
    await log.write(event({ requestId: 'two' }));
    expect(await log.ready()).toBe(true);
    expect(await lines(real)).toEqual([event({ requestId: 'one' }), event({ requestId: 'two' })]);
  });

  it('rejects an event it cannot serialize without throwing or going unavailable', async () => {
    const log = audit(join(dir, 'audit.log'));
    let result: Promise<void> | undefined;
    expect(() => {
      result = log.write(event({ arguments: { size: 1n } }));
    }).not.toThrow();
    await expect(result).rejects.toBeInstanceOf(AuditUnavailableError);
    expect(log.available).toBe(true);
  });
});

describe('AuditLog to stdout', () => {
  it('writes one line per event to the stream', async () => {
    const stdout = new FakeStdout();
    const log = new AuditLog('stdout', { stdout: stdout as unknown as NodeJS.WritableStream });
    expect(await log.ready()).toBe(true);
    await Promise.all([log.write(event({ requestId: 'a' })), log.write(event({ requestId: 'b' }))]);
    expect(stdout.chunks.map((chunk) => JSON.parse(chunk) as unknown)).toEqual([
      event({ requestId: 'a' }),
      event({ requestId: 'b' }),
    ]);
    expect(stdout.chunks.every((chunk) => chunk.endsWith('\n'))).toBe(true);
    await log.close();
  });

  it('goes unavailable when a write callback errors and available again after the next write succeeds', async () => {
    const stdout = new FakeStdout([0]);
    const log = new AuditLog('stdout', { stdout: stdout as unknown as NodeJS.WritableStream });
    await expect(log.write(event())).rejects.toBeInstanceOf(AuditUnavailableError);
    expect(log.available).toBe(false);
    expect(await log.ready()).toBe(false);

    await log.write(event({ outcome: 'AUDIT_UNAVAILABLE' }));
    expect(log.available).toBe(true);
    expect(await log.ready()).toBe(true);
    await log.close();
  });

  it("goes unavailable on the stream's 'error' event", async () => {
    const stdout = new FakeStdout();
    const log = new AuditLog('stdout', { stdout: stdout as unknown as NodeJS.WritableStream });
    stdout.emit('error', new Error('EPIPE'));
    expect(log.available).toBe(false);
    await log.close();
    expect(stdout.listenerCount('error')).toBe(0);
  });
});

describe('AuditLog, opened and closed', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-log-closed-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a write once closed, is not ready then, and closes once however often asked', async () => {
    const log = new AuditLog({ file: join(dir, 'audit.log') });
    await log.write(event());
    await log.close();
    await log.close();
    const refusal = await log.write(event()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(AuditUnavailableError);
    expect((refusal as Error).name).toBe('AuditUnavailableError');
    expect((refusal as Error).message).toBe('The audit log is closed.');
    expect(await log.ready()).toBe(false);
    expect(await lines(join(dir, 'audit.log'))).toHaveLength(1);
  });

  it('is not ready, and unavailable, while its file cannot be opened', async () => {
    const log = new AuditLog({ file: join(dir, 'missing', 'audit.log') });
    expect(log.available).toBe(true);
    expect(await log.ready()).toBe(false);
    expect(log.available).toBe(false);
    await log.close();
  });

  it('keeps the reason of a failed write or serialization as the cause', async () => {
    const log = new AuditLog({ file: '/dev/full' });
    const failed = (await log.write(event()).catch((error: unknown) => error)) as Error;
    expect(failed.message).toBe('The audit log cannot be written.');
    expect(failed.cause).toBeInstanceOf(Error);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    const unserializable = (await log
      .write(event({ arguments: cyclic }))
      .catch((error: unknown) => error)) as Error;
    expect(unserializable.message).toBe('The audit event cannot be serialized.');
    expect(unserializable.cause).toBeInstanceOf(TypeError);
    await log.close();
  });

  it("listens to stdout's errors only when it writes to stdout, and stops when closed", async () => {
    const stdout = new FakeStdout();
    const toFile = new AuditLog({ file: join(dir, 'audit.log') }, { stdout: stdout as never });
    expect(stdout.listenerCount('error')).toBe(0);
    await toFile.close();
    const toStdout = new AuditLog('stdout', { stdout: stdout as never });
    expect(stdout.listenerCount('error')).toBe(1);
    await toStdout.close();
    expect(stdout.listenerCount('error')).toBe(0);
  });

  it('goes unavailable when writing to stdout throws at once', async () => {
    const throwing = Object.assign(new EventEmitter(), {
      write: () => {
        throw new Error('closed');
      },
    });
    const log = new AuditLog('stdout', { stdout: throwing as never });
    const failed = (await log.write(event()).catch((error: unknown) => error)) as Error;
    expect(failed).toBeInstanceOf(AuditUnavailableError);
    expect((failed.cause as Error).message).toBe('closed');
    expect(log.available).toBe(false);
    const thrownText = Object.assign(new EventEmitter(), {
      write: () => {
        throw 'text'; // eslint-disable-line @typescript-eslint/only-throw-error
      },
    });
    const other = new AuditLog('stdout', { stdout: thrownText as never });
    const text = (await other.write(event()).catch((error: unknown) => error)) as Error;
    expect((text.cause as Error).message).toBe('text');
    await log.close();
    await other.close();
  });
});
