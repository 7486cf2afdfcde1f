import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type * as fsPromises from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditLog, type AuditCompletedEvent } from '../../src/audit/audit-log.ts';

/**
 * A disk that fills mid-line, as write(2) sees it: the next write takes half
 * its bytes (a short count), the one after fails with ENOSPC.
 */
const fault = { tearNext: false, failNext: false };

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsPromises>();
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>): Promise<FileHandle> => {
      const handle = await real.open(...args);
      const write = handle.write.bind(handle) as (b: Buffer, o: number) => Promise<unknown>;
      return Object.assign(Object.create(handle) as FileHandle, {
        stat: () => handle.stat(),
        close: () => handle.close(),
        write: async (bytes: Buffer, offset: number) => {
          if (fault.failNext) {
            fault.failNext = false;
            throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
          }
          if (!fault.tearNext) return write(bytes, offset);
          fault.tearNext = false;
          fault.failNext = true;
          const half = bytes.subarray(offset, offset + Math.ceil((bytes.length - offset) / 2));
          return write(half, 0);
        },
      });
    },
  };
});

const event = (requestId: string): AuditCompletedEvent => ({
  time: '2025-01-01T00:00:00.000Z',
  requestId,
  actor: { name: 'alice', via: 'session' },
  clientAddress: null,
  operationName: null,
  field: 'createIpSet',
  arguments: {},
  stage: 'completed',
  decision: 'allowed',
  outcome: 'ok',
  upstream: [],
});

describe('AuditLog after a write that left half a line', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-torn-'));
  });
  afterEach(async () => {
    fault.tearNext = false;
    fault.failNext = false;
    await rm(dir, { recursive: true, force: true });
  });

  it('starts the next line on a line of its own, so every whole event still parses', async () => {
    const path = join(dir, 'audit.log');
    const log = new AuditLog({ file: path });
    await log.write(event('one'));
    fault.tearNext = true;
    await expect(log.write(event('torn'))).rejects.toThrow('The audit log cannot be written.');
    expect(await log.ready()).toBe(false);
    await log.write(event('two'));
    await log.write(event('three'));
    await log.close();
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[1]?.startsWith('{"time"')).toBe(true);
    const whole = lines.filter((line) => line !== '' && line.endsWith('}'));
    expect(whole.map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual([
      'one',
      'two',
      'three',
    ]);
  });
});
