import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const dir = mkdtempSync(join(tmpdir(), 'uploads-memory-'));
const reader = 'reader-token-0123456789abcdef';
const tokensFile = join(dir, 'tokens.json');
writeFileSync(tokensFile, JSON.stringify([{ name: 'reader', token: reader, scopes: ['read'] }]));
let gateway: SpawnedGateway | undefined;
afterAll(() => {
  gateway?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const rssOf = (pid: number): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

const mib = 1024 * 1024;
const boundary = '----attack0123456789';

/**
 * One client that uploads `fileBytes` bytes as the file of importPackage,
 * over a raw socket, as fast as the gateway takes them; stops when the
 * gateway answers or closes. Resolves with what the gateway sent.
 */
function upload(port: number, token: string, fileBytes: number): Promise<string> {
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n` +
      JSON.stringify({
        query: 'mutation($f: File!) { importPackage(file: $f, overwrite: true) { imported } }',
        variables: { f: null },
      }) +
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n{"0":["variables.f"]}` +
      `\r\n--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="big.package"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + fileBytes + tail.length;
  const chunk = Buffer.alloc(mib);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const state = { over: false };
    socket.on('data', (data: Buffer) => {
      received += data.toString('utf8');
      state.over = true;
      // The answer came: the client leaves, as a client that got its answer does.
      if (received.includes('\r\n\r\n') && /\}\s*$/.test(received)) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      state.over = true;
      resolve(received);
    });
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nx-graphql-csrf: 1\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n`,
    );
    socket.write(head);
    void (async () => {
      for (let sent = 0; sent < fileBytes && !state.over; sent += mib) {
        const piece = chunk.subarray(0, Math.min(mib, fileBytes - sent));
        if (!socket.write(piece)) {
          await new Promise((resume) => {
            socket.once('drain', resume);
            socket.once('close', resume);
          });
        }
      }
      if (!state.over) socket.end(tail);
    })();
  });
}

describe('uploads from a caller without the mutation’s scope', () => {
  it('are refused before they are read: sixteen parallel 99 MiB uploads of a read-only token grow the gateway’s RSS by well under 200 MB', async () => {
    gateway = spawnGateway({ PORT: '0', LOG_LEVEL: 'info', GATEWAY_TOKENS_FILE: tokensFile });
    const port = await gateway.port();
    const pid = gateway.child.pid ?? 0;
    const before = rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid));
    }, 20);
    try {
      const answers = await Promise.all(
        Array.from({ length: 16 }, () => upload(port, reader, 99 * mib)),
      );
      for (const answer of answers) {
        expect(answer).toMatch(/^HTTP\/1\.1 \d{3} /);
        expect(answer).toContain('FORBIDDEN');
        expect(answer).toContain('package:import');
      }
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rssOf(pid));
    expect(peak - before).toBeLessThan(200 * mib);
  });
});
