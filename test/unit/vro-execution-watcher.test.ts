import { describe, expect, it } from 'vitest';
import {
  ExecutionWatcher,
  executionWatchKey,
  type CallStats,
  type ExecutionEvent,
} from '../../src/upstreams/vro/execution-watcher.ts';
import type { ExecutionRecord, WireExecutionState } from '../../src/upstreams/vro/wire.ts';

function execution(state: WireExecutionState): ExecutionRecord {
  return {
    id: 'e1',
    workflowId: 'w1',
    name: 'Test',
    state,
    startDate: null,
    endDate: null,
    startedBy: null,
    inputParameters: [],
    outputParameters: [],
    exception: null,
  };
}

/** A fake upstream that answers the states of `script` in turn, then repeats the last. */
function scripted(script: Array<WireExecutionState | Error>) {
  const calls: Array<{ requestId: string; signal: AbortSignal }> = [];
  const fetch = (
    signal: AbortSignal,
    requestId: string,
    stats: CallStats,
  ): Promise<ExecutionRecord> => {
    calls.push({ signal, requestId });
    // Each poll is one upstream attempt, a failed one two (a retry).
    stats.upstreamCalls +=
      script[Math.min(calls.length - 1, script.length - 1)] instanceof Error ? 2 : 1;
    const step = script[Math.min(calls.length - 1, script.length - 1)];
    if (step instanceof Error) return Promise.reject(step);
    return Promise.resolve(execution(step ?? 'running'));
  };
  return { fetch, calls };
}

async function collect(events: AsyncIterable<ExecutionEvent>): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const event of events) {
    seen.push('error' in event ? `error: ${String(event.error)}` : event.execution.state);
  }
  return seen;
}

const fast = { minDelayMs: 1, maxDelayMs: 4 };

describe('the execution watcher', () => {
  it('emits the first state, then only changes, and ends after a terminal state', async () => {
    const watcher = new ExecutionWatcher(fast);
    const upstream = scripted([
      'initializing',
      'initializing',
      'running',
      'running',
      'running',
      'completed',
    ]);
    expect(await collect(watcher.watch('k', upstream.fetch))).toEqual([
      'initializing',
      'running',
      'completed',
    ]);
    expect(upstream.calls).toHaveLength(6);
    expect(watcher.activePollers).toBe(0);
  });

  it('emits a terminal execution once and ends', async () => {
    const watcher = new ExecutionWatcher(fast);
    const upstream = scripted(['failed']);
    expect(await collect(watcher.watch('k', upstream.fetch))).toEqual(['failed']);
    expect(upstream.calls).toHaveLength(1);
  });

  it('shares one poller between the subscribers of one key', async () => {
    const watcher = new ExecutionWatcher(fast);
    const upstream = scripted(['running', 'running', 'running', 'running', 'canceled']);
    const unused = scripted(['running']);
    const first = watcher.watch('k', upstream.fetch);
    const second = watcher.watch('k', unused.fetch);
    expect(watcher.activePollers).toBe(1);
    const [a, b] = await Promise.all([collect(first), collect(second)]);
    expect(a).toEqual(['running', 'canceled']);
    expect(b).toEqual(['running', 'canceled']);
    expect(unused.calls).toHaveLength(0);
    expect(new Set(upstream.calls.map((call) => call.requestId)).size).toBe(1);
  });

  it('gives a late subscriber the current execution first', async () => {
    const watcher = new ExecutionWatcher({ minDelayMs: 1, maxDelayMs: 1 });
    const upstream = scripted(['initializing', 'running']);
    const first = watcher.watch('k', upstream.fetch);
    expect((await first.next()).value).toMatchObject({ execution: { state: 'initializing' } });
    expect((await first.next()).value).toMatchObject({ execution: { state: 'running' } });
    const late = watcher.watch('k', upstream.fetch);
    expect((await late.next()).value).toMatchObject({ execution: { state: 'running' } });
    await first.return?.();
    await late.return?.();
  });

  it('stops polling and aborts the call in flight when the last subscriber leaves', async () => {
    const watcher = new ExecutionWatcher(fast);
    const upstream = scripted(['running']);
    const first = watcher.watch('k', upstream.fetch);
    const second = watcher.watch('k', upstream.fetch);
    await first.next();
    await second.next();
    await first.return?.();
    expect(watcher.activePollers).toBe(1);
    await second.return?.();
    expect(watcher.activePollers).toBe(0);
    const polls = upstream.calls.length;
    expect(upstream.calls.at(-1)?.signal.aborted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(upstream.calls).toHaveLength(polls);
  });

  it('emits an upstream error once to every subscriber and ends', async () => {
    const watcher = new ExecutionWatcher(fast);
    const upstream = scripted(['running', new Error('boom')]);
    const [a, b] = await Promise.all([
      collect(watcher.watch('k', upstream.fetch)),
      collect(watcher.watch('k', upstream.fetch)),
    ]);
    expect(a).toEqual(['running', 'error: Error: boom']);
    expect(b).toEqual(a);
    expect(watcher.activePollers).toBe(0);
  });

  it('starts a new poller for a key whose poller has ended', async () => {
    const watcher = new ExecutionWatcher(fast);
    const upstream = scripted(['completed']);
    await collect(watcher.watch('k', upstream.fetch));
    await collect(watcher.watch('k', upstream.fetch));
    expect(upstream.calls).toHaveLength(2);
  });

  it('keys pollers by execution and credential identity', () => {
    expect(executionWatchKey('w', 'e', 'alice')).not.toBe(executionWatchKey('w', 'e', 'bob'));
    expect(executionWatchKey('w', 'e', 'alice')).not.toBe(executionWatchKey('w', 'e2', 'alice'));
    expect(executionWatchKey('w,e', '', 'a')).not.toBe(executionWatchKey('w', 'e,', 'a'));
  });

  it('puts the calls of every poll to the account of each subscriber it served', async () => {
    const watcher = new ExecutionWatcher(fast);
    const upstream = scripted(['running', 'running', 'completed']);
    const [early, late] = [{ upstreamCalls: 0 }, { upstreamCalls: 0 }];
    const first = watcher.watch('k', upstream.fetch, early);
    expect((await first.next()).value).toMatchObject({ execution: { state: 'running' } });
    const second = watcher.watch('k', upstream.fetch, late);
    await Promise.all([collect(first), collect(second)]);
    expect(upstream.calls).toHaveLength(3);
    expect(early.upstreamCalls).toBe(3);
    // It joined after the first poll: the two after it were made for it too.
    expect(late.upstreamCalls).toBe(2);
  });

  it('counts the calls of the poll that failed', async () => {
    const watcher = new ExecutionWatcher(fast);
    const upstream = scripted(['running', new Error('down')]);
    const stats = { upstreamCalls: 0 };
    expect(await collect(watcher.watch('k', upstream.fetch, stats))).toEqual([
      'running',
      'error: Error: down',
    ]);
    expect(stats.upstreamCalls).toBe(3);
  });

  it('gives the error to a subscriber that starts reading after the watch ended with it', async () => {
    const watcher = new ExecutionWatcher(fast);
    const upstream = scripted([new Error('gone')]);
    const late = watcher.watch('k', upstream.fetch);
    for (let n = 0; n < 10 && watcher.activePollers > 0; n++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(watcher.activePollers).toBe(0);
    expect(await collect(late)).toEqual(['error: Error: gone']);
  });
});
