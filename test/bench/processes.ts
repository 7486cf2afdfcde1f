import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The project root, whatever the working directory. */
export const root = fileURLToPath(new URL('../../', import.meta.url));

/** The node flags of `npm start` (package.json): the gateway runs here as it runs there. */
export function startFlags(): string[] {
  const manifest = JSON.parse(
    readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
  ) as {
    scripts: { start: string };
  };
  return manifest.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.exit(130));
}

export interface Spawned {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The last lines the process wrote to stderr (for failure reports). */
  stderrTail(): string;
  /** SIGTERM, then SIGKILL when it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `node <args>` from the project root, with exactly `env` (plus PATH). */
export function spawnNode(
  label: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  cores?: string,
): Spawned {
  const command = cores === undefined ? process.execPath : 'taskset';
  const argv = cores === undefined ? [...args] : ['-c', cores, process.execPath, ...args];
  const child = spawn(command, argv, {
    cwd: root,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`${label}: could not start`);
  running.add(child);
  const tail: string[] = [];
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    tail.push(text);
    if (tail.length > 40) tail.shift();
  });
  // always drained: a full pipe would block a process that logs synchronously
  child.stdout.setEncoding('utf8').on('data', () => undefined);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      running.delete(child);
      resolve();
    });
  });
  return {
    child,
    pid: child.pid,
    stderrTail: () => tail.join('').slice(-4000),
    stop: async (graceMs = 10_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The first line of stdout that parses as a JSON object. */
export function firstJsonLine<T>(spawned: Spawned, timeoutMs = 20_000): Promise<T> {
  const { child } = spawned;
  return new Promise<T>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => finish(new Error('no JSON line in time')), timeoutMs);
    const onData = (text: string): void => {
      buffer += text;
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const line = buffer.slice(0, at).trim();
        buffer = buffer.slice(at + 1);
        if (!line.startsWith('{')) continue;
        try {
          finish(undefined, JSON.parse(line) as T);
          return;
        } catch {
          // not the line we wait for
        }
      }
    };
    const onExit = (): void => finish(new Error(`exited early: ${spawned.stderrTail()}`));
    function finish(error: Error | undefined, value?: T): void {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      if (error === undefined) resolve(value as T);
      else reject(error);
    }
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Everything the process writes to stdout, once it has exited. */
export function collectStdout(spawned: Spawned): Promise<{ stdout: string; code: number | null }> {
  return new Promise((resolve) => {
    let stdout = '';
    spawned.child.stdout?.on('data', (text: string) => (stdout += text));
    spawned.child.once('close', (code) => resolve({ stdout, code }));
  });
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** True when this machine lets us pin processes to cores 0 and 1 (taskset, two cores or more). */
export function pinningAvailable(): boolean {
  const zero = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
  const one = spawnSync('taskset', ['-c', '1', 'true'], { stdio: 'ignore' });
  return zero.status === 0 && one.status === 0;
}

/** Moves every thread of a running process to these cores (`0`, `1`, `0-1`). */
export function pin(pid: number, cores: string): void {
  const result = spawnSync('taskset', ['-a', '-cp', cores, String(pid)], { stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`taskset could not pin ${pid} to ${cores}`);
}

/** Resident memory of a process in bytes (`VmRSS` of /proc/<pid>/status). */
export function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) * 1024;
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

const ticksPerSecond =
  Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU time (user + system) a process has used so far, in seconds (/proc/<pid>/stat). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime and stime are fields 14 and 15
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}
