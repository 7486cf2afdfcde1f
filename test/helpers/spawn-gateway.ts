import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** One pino line the gateway wrote. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

function isLogLine(value: unknown): value is LogLine {
  return typeof value === 'object' && value !== null && 'msg' in value && 'level' in value;
}

export interface SpawnedGateway {
  readonly child: ChildProcess;
  /** Every line written to stdout / stderr so far. */
  readonly stdout: string[];
  readonly stderr: string[];
  /** The stdout lines that are pino JSON. */
  logs(): LogLine[];
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  readonly exited: Promise<number | string>;
  /** Resolves with the first log line that matches, or rejects when the process ends first. */
  waitForLog(match: (line: LogLine) => boolean): Promise<LogLine>;
  /** The port from the "ready" log line. */
  port(): Promise<number>;
  /** Sends SIGKILL if the process still runs (test clean-up). */
  kill(): void;
}

/** The Node flags of `npm start` (V8's heap sizing, `--expose-gc`). */
const startFlags = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  }
).scripts.start
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

/**
 * Runs `src/main.ts` with the flags of `npm start`, with only PATH and `env`
 * in its environment, under the Node that runs the tests (the project's Node 24).
 */
export function spawnGateway(env: Record<string, string>): SpawnedGateway {
  const child = spawn(process.execPath, [...startFlags, 'src/main.ts'], {
    cwd: projectRoot,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  const collect = (lines: string[]) => {
    let partial = '';
    return (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts.filter((line) => line !== ''));
      for (const wake of waiters) wake();
    };
  };
  child.stdout.on('data', collect(stdout));
  child.stderr.on('data', collect(stderr));
  let ended = false;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      ended = true;
      for (const wake of waiters) wake();
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const logs = (): LogLine[] =>
    stdout.flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as unknown;
        return isLogLine(parsed) ? [parsed] : [];
      } catch {
        return [];
      }
    });
  const waitForLog = (match: (line: LogLine) => boolean): Promise<LogLine> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const found = logs().find(match);
        if (found !== undefined) {
          waiters.delete(check);
          resolve(found);
        } else if (ended) {
          waiters.delete(check);
          reject(new Error(`the gateway ended first:\n${stdout.join('\n')}\n${stderr.join('\n')}`));
        }
      };
      waiters.add(check);
      check();
    });
  return {
    child,
    stdout,
    stderr,
    logs,
    exited,
    waitForLog,
    port: async () => {
      const ready = await waitForLog((line) => line.msg.startsWith('GraphQL gateway ready'));
      return ready['port'] as number;
    },
    kill: () => {
      if (!ended) child.kill('SIGKILL');
    },
  };
}
