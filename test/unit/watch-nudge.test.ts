import { describe, expect, it } from 'vitest';
import { Watcher, type CallStats, type WatchEvent } from '../../src/upstreams/poller.ts';
import { MemoryRedis } from '../helpers/memory-store.ts';
import { sleep, until } from '../helpers/wait.ts';

// A cancel made through the gateway nudges the run's pollers: they poll at
// once instead of at their next backed-off poll, then keep to the first delay
// for a while, on this replica and (through the store's channel) on the others.

const rules = {
  changed: (previous: { state: string } | undefined, next: { state: string }) =>
    previous?.state !== next.state,
  isFinal: (record: { state: string }) => record.state === 'canceled',
  event: (record: { state: string }) => record,
  requestIdPrefix: 'test-watch',
};

/** An upstream record whose state the test sets; each poll is recorded (by whom, when). */
function upstream() {
  const polls: Array<{ by: string; at: number }> = [];
  let state = 'running';
  /** Set: the next poll answers only once the test calls it (a poll in flight). */
  let held: Promise<void> | undefined;
  return {
    polls,
    set: (next: string) => {
      state = next;
    },
    hold: () => {
      let release = () => {};
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    fetch: (by: string) => async (_signal: AbortSignal, _id: string, stats: CallStats) => {
      polls.push({ by, at: Date.now() });
      stats.upstreamCalls += 1;
      // what the upstream says is what it says when the call is made
      const answer = { state };
      if (held !== undefined) await held;
      return answer;
    },
  };
}

/** The states a watch emits, as they arrive, with when each did. */
function follow(events: AsyncIterable<WatchEvent<{ state: string }>>) {
  const seen: Array<{ state: string; at: number }> = [];
  const done = (async () => {
    for await (const event of events) {
      seen.push({ state: 'error' in event ? 'error' : event.state, at: Date.now() });
    }
  })();
  return { seen, done, states: () => seen.map((s) => s.state) };
}

/** Backed off after a few unchanged polls: the next one is a second away or more. */
const slow = { minDelayMs: 100, maxDelayMs: 60_000, hurryMs: 1000, leaseMs: 1000 };

describe('a nudged poller', () => {
  it('polls at once however far it has backed off, then keeps to the first delay until the record is final', async () => {
    const watcher = new Watcher(rules, slow);
    const record = upstream();
    const run = follow(watcher.watch('k', record.fetch('a'), undefined, 'run'));
    // polls at 0, 100, 300 and 700 ms: the next one would be at 1500 ms
    await until(() => record.polls.length >= 4);
    record.set('canceling');
    const nudgedAt = Date.now();
    watcher.nudge('run');
    await until(() => run.states().includes('canceling'));
    expect(run.seen.at(-1)!.at - nudgedAt).toBeLessThan(500);
    // no change since, but still polled every 100 ms, not 200, 400...
    const mark = record.polls.length;
    await sleep(450);
    expect(record.polls.length - mark).toBeGreaterThanOrEqual(3);
    record.set('canceled');
    await run.done;
    expect(run.states()).toEqual(['running', 'canceling', 'canceled']);
    expect(watcher.activePollers).toBe(0);
  });

  it('backs off again once the hurry is over', async () => {
    const watcher = new Watcher(rules, { ...slow, hurryMs: 200 });
    const record = upstream();
    const run = follow(watcher.watch('k', record.fetch('a'), undefined, 'run'));
    await until(() => record.polls.length >= 2);
    watcher.nudge('run');
    await sleep(600);
    const mark = record.polls.length;
    await sleep(500);
    // after the hurry: 100, 200, 400 ms apart at most twice in half a second
    expect(record.polls.length - mark).toBeLessThanOrEqual(2);
    watcher.close();
    await run.done;
  });

  it('reaches the pollers of the group under every credential, and no other', async () => {
    const watcher = new Watcher(rules, slow);
    const record = upstream();
    const other = upstream();
    const alice = follow(watcher.watch('run/alice', record.fetch('alice'), undefined, 'run'));
    const bob = follow(watcher.watch('run/bob', record.fetch('bob'), undefined, 'run'));
    const elsewhere = follow(watcher.watch('other', other.fetch('other'), undefined, 'other'));
    await until(() => record.polls.length >= 8 && other.polls.length >= 4);
    const otherPolls = other.polls.length;
    record.set('canceled');
    other.set('canceled');
    const nudgedAt = Date.now();
    watcher.nudge('run');
    await Promise.all([alice.done, bob.done]);
    for (const follower of [alice, bob]) {
      expect(follower.states()).toEqual(['running', 'canceled']);
      expect(follower.seen.at(-1)!.at - nudgedAt).toBeLessThan(500);
    }
    // the other record's poller was left to its own pace
    expect(other.polls.length).toBe(otherPolls);
    expect(elsewhere.states()).toEqual(['running']);
    watcher.close();
    await elsewhere.done;
  });

  it('polls again after the poll in flight when nudged during it: that answer may predate the change', async () => {
    const watcher = new Watcher(rules, slow);
    const record = upstream();
    const run = follow(watcher.watch('k', record.fetch('a'), undefined, 'run'));
    await until(() => run.seen.length === 1);
    const release = record.hold();
    const mark = record.polls.length;
    await until(() => record.polls.length > mark);
    // the poll in flight read "running"; the cancel happens now
    record.set('canceled');
    watcher.nudge('run');
    release();
    await run.done;
    expect(run.states()).toEqual(['running', 'canceled']);
  });

  it('does nothing to a watch without a group, nor when nothing watches the group', async () => {
    const watcher = new Watcher(rules, slow);
    const record = upstream();
    const run = follow(watcher.watch('k', record.fetch('a')));
    await until(() => record.polls.length >= 4);
    const mark = record.polls.length;
    watcher.nudge('run');
    watcher.nudge('k');
    await sleep(200);
    expect(record.polls.length).toBe(mark);
    watcher.close();
    await run.done;
  });
});

describe('a nudge across replicas sharing a store', () => {
  it('reaches the replica that polls the run when another replica nudges it, even one that does not follow the run', async () => {
    const redis = new MemoryRedis();
    const [a, b] = ['a', 'b'].map(
      (replica) => new Watcher(rules, { ...slow, remote: redis.store(replica) }),
    );
    const record = upstream();
    const run = follow(b!.watch('k', record.fetch('b'), undefined, 'run'));
    await until(() => record.polls.length >= 4);
    record.set('canceled');
    const nudgedAt = Date.now();
    a!.nudge('run');
    await run.done;
    expect(run.states()).toEqual(['running', 'canceled']);
    expect(run.seen.at(-1)!.at - nudgedAt).toBeLessThan(500);
    expect(new Set(record.polls.map((p) => p.by))).toEqual(new Set(['b']));
    expect(redis.commands).toContain('a publish');
  });

  it('has the lease holder poll when a following replica nudges; the follower leaves the poll to it', async () => {
    const redis = new MemoryRedis();
    const [a, b] = ['a', 'b'].map(
      (replica) => new Watcher(rules, { ...slow, remote: redis.store(replica) }),
    );
    const record = upstream();
    const onA = follow(a!.watch('k', record.fetch('a'), undefined, 'run'));
    await until(() => record.polls.length >= 1);
    const onB = follow(b!.watch('k', record.fetch('b'), undefined, 'run'));
    await until(() => record.polls.length >= 4 && onB.seen.length === 1);
    expect(new Set(record.polls.map((p) => p.by))).toEqual(new Set(['a']));
    record.set('canceled');
    const nudgedAt = Date.now();
    b!.nudge('run');
    await Promise.all([onA.done, onB.done]);
    for (const replica of [onA, onB]) {
      expect(replica.states()).toEqual(['running', 'canceled']);
      expect(replica.seen.at(-1)!.at - nudgedAt).toBeLessThan(500);
    }
    expect(new Set(record.polls.map((p) => p.by))).toEqual(new Set(['a']));
  });

  it('nudges only its own pollers while the store is down', async () => {
    const redis = new MemoryRedis();
    redis.up = false;
    const a = new Watcher(rules, { ...slow, remote: redis.store('a') });
    const record = upstream();
    const run = follow(a.watch('k', record.fetch('a'), undefined, 'run'));
    await until(() => record.polls.length >= 4);
    record.set('canceled');
    a.nudge('run');
    await run.done;
    expect(run.states()).toEqual(['running', 'canceled']);
    expect(redis.commands.filter((c) => c.endsWith('publish'))).toEqual([]);
  });
});
