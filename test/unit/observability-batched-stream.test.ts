import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchedStream, flushHeldLines } from '../../src/observability/batched-stream.ts';

function target() {
  const writes: string[] = [];
  const calls: string[] = [];
  return {
    writes,
    calls,
    write(text: string) {
      writes.push(text);
      return true;
    },
    flush(callback: (error?: Error) => void) {
      calls.push('flush');
      callback();
    },
    flushSync() {
      calls.push('flushSync');
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('a batched log stream', () => {
  it('hands the lines of one turn of the event loop on in one write, in order', async () => {
    const sink = target();
    const stream = new BatchedStream(sink);
    stream.write('a\n');
    stream.write('b\n');
    stream.write('c\n');
    expect(sink.writes).toEqual([]);
    await nextTurn();
    expect(sink.writes).toEqual(['a\nb\nc\n']);
    stream.write('d\n');
    await nextTurn();
    expect(sink.writes).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('with a delay, hands on at most that late what came in the meantime, in one write', () => {
    vi.useFakeTimers();
    const sink = target();
    const stream = new BatchedStream(sink, 10);
    stream.write('a\n');
    vi.advanceTimersByTime(9);
    stream.write('b\n');
    expect(sink.writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sink.writes).toEqual(['a\nb\n']);
    stream.write('c\n');
    vi.advanceTimersByTime(10);
    expect(sink.writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('writes at once when it holds 64 KiB', () => {
    const sink = target();
    const stream = new BatchedStream(sink);
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 64; i++) stream.write(line);
    expect(sink.writes).toEqual([line.repeat(64)]);
  });

  it('writes what it holds before flushing its target (logger.flush before exit)', async () => {
    const sink = target();
    const stream = new BatchedStream(sink);
    stream.write('last\n');
    await new Promise<void>((resolve) => {
      stream.flush(() => resolve());
    });
    expect(sink.writes).toEqual(['last\n']);
    expect(sink.calls).toEqual(['flush']);
    stream.write('sync\n');
    stream.flushSync();
    expect(sink.writes).toEqual(['last\n', 'sync\n']);
    expect(sink.calls).toEqual(['flush', 'flushSync']);
    await nextTurn();
    expect(sink.writes).toHaveLength(2);
  });

  it('writes what it holds when the process exits without a flush', () => {
    const sink = target();
    const stream = new BatchedStream(sink);
    stream.write('at exit\n');
    expect(process.listeners('exit')).toContain(flushHeldLines);
    flushHeldLines();
    expect(sink.writes).toEqual(['at exit\n']);
    expect(sink.calls).toEqual(['flushSync']);
  });

  it('lets the exit go on when its destination cannot be written any more', () => {
    const broken = new BatchedStream({
      write: () => true,
      flush: () => undefined,
      flushSync: () => {
        throw new Error('SonicBoom destroyed');
      },
    });
    broken.write('lost\n');
    expect(() => flushHeldLines()).not.toThrow();
  });
});
