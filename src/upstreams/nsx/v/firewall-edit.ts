/**
 * Changes of an application firewall ruleset. vShield App replaces the whole
 * ruleset on each POST, guarded by the generation number, so one rule is
 * added or removed by reading the ruleset, splicing that rule, and posting
 * the rest back untouched; a concurrent change (409 or 412) starts the cycle
 * again on the fresh ruleset after a jittered pause, up to a bound.
 */
import { BadUserInputError } from '../../../errors.ts';
import type { CallContext } from '../../../http/upstream-http.ts';
import {
  defaultConflictRetry,
  retryOnConflict,
  serialised,
  type ConflictRetry,
} from '../conflict-retry.ts';
import type { RuleDraft } from '../drafts.ts';
import {
  insertRule,
  layerSize,
  readRule,
  removeRule,
  replaceAllRules,
  replaceRule,
  ruleXml,
} from './firewall-xml.ts';
import type { KeyedLock } from '../keyed-lock.ts';
import { RuleNotFoundError } from '../rule-not-found-error.ts';
import type {
  FirewallConfigAnswer,
  FirewallConfigRecord,
  FirewallGenerationRecord,
  FirewallRuleRecord,
} from '../wire.ts';
import type { XmlElement } from '../xml/xml.ts';

export interface FirewallStore {
  /** `forEdit`: a read of the edit's own, whose record may carry `release`. */
  getFirewall(
    call: CallContext,
    contextId: string,
    forEdit?: boolean,
  ): Promise<FirewallConfigRecord>;
  /** The generation number on a read of its own, the answer checked, its rules not read. */
  getFirewallGeneration(call: CallContext, contextId: string): Promise<FirewallGenerationRecord>;
  postFirewall(
    call: CallContext,
    contextId: string,
    generationNumber: string,
    document: XmlElement,
  ): Promise<void>;
  /** Serialises this process's writes per context. */
  readonly firewallWrites: KeyedLock;
}

function currentRule(
  config: FirewallConfigRecord,
  draft: RuleDraft,
  ruleId: string,
): FirewallRuleRecord {
  const rule = config.ruleIndex.find(ruleId);
  if (rule === undefined) throw new RuleNotFoundError(ruleId, config.contextId);
  if (rule.layer !== draft.layer) {
    throw new BadUserInputError(
      `Rule ${ruleId} is a ${rule.layer} rule; pass layer: ${rule.layer} to change it.`,
      'layer',
    );
  }
  return readRule(rule.xml, rule.layer);
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
  answer: FirewallAnswer = 'rules',
): Promise<FirewallConfigAnswer> {
  await serialised(store.firewallWrites, contextId, call, () =>
    writeEdited(
      store,
      call,
      contextId,
      (current) => {
        const rules = drafts.map((draft) =>
          draft.id === undefined
            ? ruleXml(draft)
            : ruleXml(draft, currentRule(current, draft, draft.id)),
        );
        return replaceAllRules(current.document, rules);
      },
      generationNumber,
    ),
  );
  return readBack(store, call, contextId, answer);
}

/** Adds a rule (or, with an id, updates that rule in place or moves it to `position`). */
export async function addFirewallRule(
  store: FirewallStore,
  call: CallContext,
  contextId: string,
  draft: RuleDraft,
  position: number | undefined,
  retry: ConflictRetry = defaultConflictRetry,
  answer: FirewallAnswer = 'rules',
): Promise<FirewallConfigAnswer> {
  return editFirewall(store, call, contextId, retry, answer, (current) => {
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
  retry: ConflictRetry = defaultConflictRetry,
  answer: FirewallAnswer = 'rules',
): Promise<FirewallConfigAnswer> {
  return editFirewall(store, call, contextId, retry, answer, (current) => {
    if (current.ruleIndex.find(ruleId) === undefined) {
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
  retry: ConflictRetry,
  answer: FirewallAnswer,
  edit: (current: FirewallConfigRecord) => XmlElement,
): Promise<FirewallConfigAnswer> {
  await retryOnConflict(store.firewallWrites, contextId, call, retry, () =>
    writeEdited(store, call, contextId, edit),
  );
  return readBack(store, call, contextId, answer);
}

/**
 * One read-modify-write: reads the configuration for the edit, posts
 * `edit`'s document against `generationNumber` (else the one read), and
 * frees the read's bytes once the write is through.
 */
async function writeEdited(
  store: FirewallStore,
  call: CallContext,
  contextId: string,
  edit: (current: FirewallConfigRecord) => XmlElement,
  generationNumber?: string,
): Promise<void> {
  const current = await store.getFirewall(call, contextId, true);
  try {
    const document = edit(current);
    await store.postFirewall(
      call,
      contextId,
      generationNumber ?? current.generationNumber,
      document,
    );
  } finally {
    current.release?.();
  }
}

/**
 * What a write answers: `rules`, the configuration read back; `generation`
 * (the caller asks for no rule), its generation number read back, the
 * answer checked but its rules not read.
 */
export type FirewallAnswer = 'rules' | 'generation';

async function readBack(
  store: FirewallStore,
  call: CallContext,
  contextId: string,
  answer: FirewallAnswer,
): Promise<FirewallConfigAnswer> {
  return answer === 'rules'
    ? store.getFirewall(call, contextId)
    : store.getFirewallGeneration(call, contextId);
}
