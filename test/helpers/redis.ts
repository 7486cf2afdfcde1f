import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../bench/processes.ts';

/** Where Debian's `redis-server` is (`.ci/run` installs it), or undefined when it is not installed. */
export function findRedisServer(): string | undefined {
  for (const candidate of ['/usr/bin/redis-server', '/usr/local/bin/redis-server']) {
    if (spawnSync(candidate, ['--version']).status === 0) return candidate;
  }
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
}

export interface TestRedis {
  readonly url: string;
  readonly port: number;
  /** A client of the test's own, to look at keys. */
  readonly client: Redis;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: nothing is saved). */
  restart(): Promise<void>;
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the server: a Redis that does not answer. */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

/**
 * A throw-away `redis-server` on a free loopback port, in a temporary folder,
 * saving nothing (`--save '' --appendonly no`).
 */
export async function startRedis(binary: string): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-redis-'));
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    const started = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = started;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start:\n${output}`)),
        10_000,
      );
      started.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${String(code)}):\n${output}`));
      });
    });
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGCONT');
    running.kill('SIGTERM');
    await exited;
  };
  await launch();
  const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  await client.connect();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    client,
    stop,
    restart: launch,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    async close() {
      client.disconnect();
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
