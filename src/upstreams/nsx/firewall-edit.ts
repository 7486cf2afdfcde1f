/**
 * Changes of an application firewall ruleset. vShield App replaces the whole
 * ruleset on each POST, guarded by the generation number, so one rule is
 * added or removed by reading the ruleset, splicing that rule, and posting
 * the rest back untouched; a concurrent change (409 or 412) starts the cycle
 * again on the fresh ruleset after a jittered pause, up to a bound.
 */
import { BadUserInputError, isConflict, UpstreamTimeoutError } from '../../errors.ts';
import { ClientGoneError, type CallContext } from '../../http/upstream-http.ts';
import type { RuleDraft } from './drafts.ts';
import {
  insertRule,
  layerSize,
  removeRule,
  replaceAllRules,
  replaceRule,
  ruleXml,
} from './firewall-xml.ts';
import { LockWaitAbortedError, LockWaitTimeoutError, type KeyedLock } from './keyed-lock.ts';
import { RuleNotFoundError } from './rule-not-found-error.ts';
import type { FirewallConfigRecord, FirewallRuleRecord } from './wire.ts';
import type { XmlElement } from './xml.ts';

export interface FirewallStore {
  getFirewall(call: CallContext, contextId: string): Promise<FirewallConfigRecord>;
  postFirewall(
    call: CallContext,
    contextId: string,
    generationNumber: string,
    document: XmlElement,
  ): Promise<void>;
  /** Serialises this process's writes per context. */
  readonly firewallWrites: KeyedLock;
}

export interface RetryOptions {
  /** Read-modify-write cycles before a conflict is given up as CONFLICT. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  random: () => number;
}

export const defaultRetry: RetryOptions = {
  attempts: 10,
  baseDelayMs: 10,
  maxDelayMs: 500,
  random: Math.random,
};

function currentRule(
  config: FirewallConfigRecord,
  draft: RuleDraft,
  ruleId: string,
): FirewallRuleRecord {
  const rule = config.rules.find((r) => r.id === ruleId);
  if (rule === undefined) throw new RuleNotFoundError(ruleId, config.contextId);
  if (rule.layer !== draft.layer) {
    throw new BadUserInputError(
      `Rule ${ruleId} is a ${rule.layer} rule; pass layer: ${rule.layer} to change it.`,
      'layer',
    );
  }
  return rule;
}

/**
 * Replaces the whole ruleset. Rules with an id are written over the current
 * rule of that id; the precondition is the given generation number, or the
 * one just read. Not retried: a conflict means the caller's view is stale.
 */
export async function replaceFirewallRules(
  store: FirewallStore,
  call: CallContext,
  contextId: string,
  drafts: readonly RuleDraft[],
  generationNumber: string | undefined,
): Promise<FirewallConfigRecord> {
  await serialised(store, call, contextId, async () => {
    const current = await store.getFirewall(call, contextId);
    const rules = drafts.map((draft) =>
      draft.id === undefined
        ? ruleXml(draft)
        : ruleXml(draft, currentRule(current, draft, draft.id)),
    );
    const document = replaceAllRules(current.document, rules);
    await store.postFirewall(
      call,
      contextId,
      generationNumber ?? current.generationNumber,
      document,
    );
  });
  return store.getFirewall(call, contextId);
}

/** Adds a rule (or, with an id, updates that rule in place or moves it to `position`). */
export async function addFirewallRule(
  store: FirewallStore,
  call: CallContext,
  contextId: string,
  draft: RuleDraft,
  position: number | undefined,
  retry: RetryOptions = defaultRetry,
): Promise<FirewallConfigRecord> {
  return editFirewall(store, call, contextId, retry, (current) => {
    const size = layerSize(current, draft.layer);
    if (draft.id === undefined) {
      checkPositionIn(position, size);
      return insertRule(current.document, ruleXml(draft), position);
    }
    const rule = ruleXml(draft, currentRule(current, draft, draft.id));
    if (position === undefined) return replaceRule(current.document, draft.id, rule);
    checkPositionIn(position, size - 1);
    return insertRule(removeRule(current.document, draft.id), rule, position);
  });
}

export async function removeFirewallRule(
  store: FirewallStore,
  call: CallContext,
  contextId: string,
  ruleId: string,
  retry: RetryOptions = defaultRetry,
): Promise<FirewallConfigRecord> {
  return editFirewall(store, call, contextId, retry, (current) => {
    if (!current.rules.some((rule) => rule.id === ruleId)) {
      throw new RuleNotFoundError(ruleId, contextId);
    }
    return removeRule(current.document, ruleId);
  });
}

function checkPositionIn(position: number | undefined, size: number): void {
  if (position !== undefined && position > size) {
    throw new BadUserInputError(
      `position ${position} is past the end of the layer (it holds ${size} rule${size === 1 ? '' : 's'}).`,
      'position',
    );
  }
}

async function editFirewall(
  store: FirewallStore,
  call: CallContext,
  contextId: string,
  retry: RetryOptions,
  edit: (current: FirewallConfigRecord) => XmlElement,
): Promise<FirewallConfigRecord> {
  await serialised(store, call, contextId, async () => {
    for (let attempt = 1; ; attempt++) {
      const current = await store.getFirewall(call, contextId);
      try {
        await store.postFirewall(call, contextId, current.generationNumber, edit(current));
        return;
      } catch (error) {
        if (!isConflict(error) || attempt >= retry.attempts) throw error;
      }
      const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
      await pause(Math.round(retry.random() * ceiling), call.signal);
    }
  });
  return store.getFirewall(call, contextId);
}

/**
 * Runs `work` once this process's earlier writes of the context are through.
 * The wait is bounded like an upstream call: a write queued behind others
 * against a hung manager answers UPSTREAM_TIMEOUT after UPSTREAM_TIMEOUT_MS
 * instead of waiting for each of them in turn, and a client that goes away
 * leaves the queue.
 */
async function serialised(
  store: FirewallStore,
  call: CallContext,
  contextId: string,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await store.firewallWrites.run(contextId, work, call.signal);
  } catch (error) {
    if (error instanceof LockWaitTimeoutError)
      throw new UpstreamTimeoutError('nsx', error.waitedMs);
    if (error instanceof LockWaitAbortedError) throw new ClientGoneError();
    throw error;
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new ClientGoneError());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ClientGoneError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
