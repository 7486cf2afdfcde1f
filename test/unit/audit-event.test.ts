import { describe, expect, it } from 'vitest';
import { auditArguments, generationOf } from '../../src/audit/audit-event.ts';

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
