import { describe, expect, it } from 'vitest';
import { BadUserInputError, UpstreamStatusError } from '../../src/errors.ts';
import type { CallContext } from '../../src/http/upstream-http.ts';
import { checkRuleInput } from '../../src/inputs/network.ts';
import {
  addFirewallRule,
  removeFirewallRule,
  replaceFirewallRules,
  type FirewallStore,
} from '../../src/upstreams/nsx/v/firewall-edit.ts';
import type { ConflictRetry } from '../../src/upstreams/nsx/conflict-retry.ts';
import { readFirewallConfig, readRules } from '../../src/upstreams/nsx/v/firewall-xml.ts';
import { KeyedLock } from '../../src/upstreams/nsx/keyed-lock.ts';
import { RuleNotFoundError } from '../../src/upstreams/nsx/rule-not-found-error.ts';
import type { FirewallConfigAnswer, FirewallConfigRecord } from '../../src/upstreams/nsx/wire.ts';
import { buildXml, parseXml, type XmlElement } from '../../src/upstreams/nsx/xml/xml.ts';

const seed = `<VshieldAppConfiguration><firewallConfiguration contextId="dvportgroup-63">
<layer3FirewallRule x="keep" disabled="false" precedence="default" id="1"><sectionId>7</sectionId><action>allow</action><logged>false</logged></layer3FirewallRule>
<layer3FirewallRule disabled="false" precedence="default" id="2"><action>deny</action><logged>false</logged></layer3FirewallRule>
<layer2FirewallRule disabled="false" precedence="default" id="3"><action>allow</action><logged>false</logged></layer2FirewallRule>
</firewallConfiguration></VshieldAppConfiguration>`;

/** An in-memory manager: POST succeeds only against the current generation; `conflicts` stale POSTs are forced first. */
class FakeStore implements FirewallStore {
  readonly firewallWrites = new KeyedLock();
  document: XmlElement = parseXml(seed);
  generation = 10;
  conflicts = 0;
  status = 412;
  gets = 0;
  posts: Array<{ generation: string; document: XmlElement }> = [];

  getFirewall(_call: CallContext, contextId: string): Promise<FirewallConfigRecord> {
    this.gets++;
    return Promise.resolve(readFirewallConfig(this.document, contextId, String(this.generation)));
  }

  getFirewallGeneration(_call: CallContext, contextId: string) {
    this.gets++;
    return Promise.resolve({ contextId, generationNumber: String(this.generation) });
  }

  postFirewall(_call: CallContext, _id: string, generation: string, document: XmlElement) {
    this.posts.push({ generation, document });
    if (this.conflicts > 0 || generation !== String(this.generation)) {
      this.conflicts = Math.max(0, this.conflicts - 1);
      this.generation++;
      return Promise.reject(new UpstreamStatusError('nsx', this.status, null, null));
    }
    this.document = document;
    this.generation++;
    return Promise.resolve();
  }
}

/** The configuration read back, with its rules (the default answer of a write). */
function whole(config: FirewallConfigAnswer): FirewallConfigRecord {
  if (config.ruleIndex === undefined) throw new Error('a write answered by its generation only');
  return config;
}

const call: CallContext = { signal: new AbortController().signal, requestId: 'test' };
const fast: ConflictRetry = { attempts: 4, baseDelayMs: 1, maxDelayMs: 2, random: () => 0 };
const rule = (notes: string, extra: Record<string, unknown> = {}) =>
  checkRuleInput({ action: 'allow', notes, ...extra });

describe('addFirewallRule', () => {
  it('reads, splices one rule and posts against the generation it read', async () => {
    const store = new FakeStore();
    const config = await addFirewallRule(store, call, 'dvportgroup-63', rule('new'), 1, fast);
    expect(store.posts).toHaveLength(1);
    expect(store.posts[0]?.generation).toBe('10');
    expect(readRules(whole(config)).map((r) => r.id ?? r.notes)).toEqual(['1', 'new', '2', '3']);
    expect(buildXml(readRules(whole(config))[0]?.xml as XmlElement)).toContain('x="keep"');
  });

  it('starts again on a fresh read after 412 or 409, until it succeeds', async () => {
    for (const status of [412, 409]) {
      const store = new FakeStore();
      store.conflicts = 3;
      store.status = status;
      await addFirewallRule(store, call, 'dvportgroup-63', rule('new'), undefined, fast);
      expect(store.posts.map((p) => p.generation)).toEqual(['10', '11', '12', '13']);
      expect(store.gets).toBe(5);
    }
  });

  it('gives up with the conflict after the last attempt', async () => {
    const store = new FakeStore();
    store.conflicts = 99;
    const failure = addFirewallRule(store, call, 'dvportgroup-63', rule('new'), undefined, fast);
    await expect(failure).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(store.posts).toHaveLength(4);
  });

  it('does not retry what is not a conflict', async () => {
    const store = new FakeStore();
    store.postFirewall = () => Promise.reject(new UpstreamStatusError('nsx', 500, null, null));
    await expect(
      addFirewallRule(store, call, 'dvportgroup-63', rule('x'), undefined, fast),
    ).rejects.toMatchObject({
      code: 'UPSTREAM_ERROR',
    });
    expect(store.gets).toBe(1);
  });

  it('refuses a position past the end of the layer without writing', async () => {
    const store = new FakeStore();
    await expect(
      addFirewallRule(store, call, 'dvportgroup-63', rule('x'), 3, fast),
    ).rejects.toBeInstanceOf(BadUserInputError);
    await expect(
      addFirewallRule(store, call, 'dvportgroup-63', rule('x', { layer: 'LAYER2' }), 2, fast),
    ).rejects.toBeInstanceOf(BadUserInputError);
    expect(store.posts).toHaveLength(0);
  });

  it('updates a rule with an id in place, or moves it to the position', async () => {
    const store = new FakeStore();
    let config = await addFirewallRule(
      store,
      call,
      'dvportgroup-63',
      rule('edited', { id: '1' }),
      undefined,
      fast,
    );
    expect(readRules(whole(config)).map((r) => r.id)).toEqual(['1', '2', '3']);
    expect(buildXml(readRules(whole(config))[0]?.xml as XmlElement)).toBe(
      '<layer3FirewallRule x="keep" disabled="false" precedence="default" id="1"><sectionId>7</sectionId><action>allow</action><logged>false</logged><notes>edited</notes></layer3FirewallRule>',
    );
    config = await addFirewallRule(
      store,
      call,
      'dvportgroup-63',
      rule('moved', { id: '1' }),
      1,
      fast,
    );
    expect(readRules(whole(config)).map((r) => r.id)).toEqual(['2', '1', '3']);
  });

  it('answers NOT_FOUND for an unknown id and BAD_USER_INPUT for a layer change', async () => {
    const store = new FakeStore();
    await expect(
      addFirewallRule(store, call, 'dvportgroup-63', rule('x', { id: '99' }), undefined, fast),
    ).rejects.toBeInstanceOf(RuleNotFoundError);
    await expect(
      addFirewallRule(store, call, 'dvportgroup-63', rule('x', { id: '3' }), undefined, fast),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(store.posts).toHaveLength(0);
  });
});

describe('removeFirewallRule', () => {
  it('removes one rule and keeps the others as they were', async () => {
    const store = new FakeStore();
    const before = readRules(readFirewallConfig(store.document, 'c', '0'));
    const config = await removeFirewallRule(store, call, 'dvportgroup-63', '2', fast);
    expect(readRules(whole(config)).map((r) => r.xml)).toEqual([before[0]?.xml, before[2]?.xml]);
  });

  it('answers NOT_FOUND when the rule is not there', async () => {
    const store = new FakeStore();
    await expect(
      removeFirewallRule(store, call, 'dvportgroup-63', '42', fast),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('replaceFirewallRules', () => {
  it('sends the given generation number and does not retry a conflict', async () => {
    const store = new FakeStore();
    const failure = replaceFirewallRules(store, call, 'dvportgroup-63', [rule('only')], '9');
    await expect(failure).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(store.posts.map((p) => p.generation)).toEqual(['9']);
  });

  it('reads the generation number when none is given', async () => {
    const store = new FakeStore();
    const config = await replaceFirewallRules(
      store,
      call,
      'dvportgroup-63',
      [rule('only')],
      undefined,
    );
    expect(store.posts.map((p) => p.generation)).toEqual(['10']);
    expect(readRules(whole(config)).map((r) => r.notes)).toEqual(['only']);
  });
});

describe('KeyedLock', () => {
  it('runs work of one key one at a time, in arrival order, and other keys freely', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const step = (name: string) => async () => {
      log.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(`${name} end`);
    };
    await Promise.all([
      lock.run('a', step('a1')),
      lock.run('a', step('a2')),
      lock.run('b', step('b1')),
    ]);
    expect(log.indexOf('a1 end')).toBeLessThan(log.indexOf('a2 start'));
    expect(log.indexOf('b1 start')).toBeLessThan(log.indexOf('a1 end'));
  });

  it('moves on after a failed piece of work', async () => {
    const lock = new KeyedLock();
    await expect(lock.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(lock.run('a', () => Promise.resolve(1))).resolves.toBe(1);
  });
});

describe('the read of an edit', () => {
  /** A store whose edit reads count the releases of their records. */
  class CountingStore extends FakeStore {
    editReads = 0;
    released = 0;
    override async getFirewall(
      call: CallContext,
      contextId: string,
      forEdit?: boolean,
    ): Promise<FirewallConfigRecord> {
      const config = await super.getFirewall(call, contextId);
      if (forEdit !== true) return config;
      this.editReads++;
      return { ...config, release: () => (this.released += 1) };
    }
  }

  it('is its own and is released once the write is through, or has failed', async () => {
    const store = new CountingStore();
    await addFirewallRule(store, call, 'dvportgroup-63', rule('x'), undefined, fast);
    expect([store.editReads, store.released]).toEqual([1, 1]);
    store.postFirewall = () => Promise.reject(new UpstreamStatusError('nsx', 500, null, null));
    await expect(removeFirewallRule(store, call, 'dvportgroup-63', '1', fast)).rejects.toThrow();
    expect([store.editReads, store.released]).toEqual([2, 2]);
  });

  it('answered by its generation only reads back the generation alone', async () => {
    const store = new CountingStore();
    const answer = await addFirewallRule(
      store,
      call,
      'dvportgroup-63',
      rule('x'),
      undefined,
      fast,
      'generation',
    );
    expect(answer).toEqual({ contextId: 'dvportgroup-63', generationNumber: '11' });
    expect([store.gets, store.editReads, store.released]).toEqual([2, 1, 1]);
  });
});
