/**
 * Rule changes of an NSX-v distributed firewall section. Each change is sent
 * with the section's generation number as If-Match; a stale one (412) means
 * another writer came first, so the section is read again and the change
 * resent (retryOnConflict). The manager keeps every other rule of the
 * section as it was: only the one rule travels.
 */
import type { CallContext } from '../../../http/upstream-http.ts';
import { defaultConflictRetry, retryOnConflict, type ConflictRetry } from '../conflict-retry.ts';
import type { DfwRuleDraft } from '../drafts.ts';
import { dfwRuleXml } from './dfw-xml.ts';
import type { KeyedLock } from '../keyed-lock.ts';
import { SectionRuleNotFoundError } from '../rule-not-found-error.ts';
import type { FirewallLayerName, FirewallSectionRecord } from '../wire.ts';
import type { XmlElement } from '../xml/xml.ts';

export interface SectionStore {
  getSection(
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
  ): Promise<FirewallSectionRecord>;
  postSectionRule(
    call: CallContext,
    section: FirewallSectionRecord,
    rule: XmlElement,
  ): Promise<void>;
  deleteSectionRule(
    call: CallContext,
    section: FirewallSectionRecord,
    ruleId: string,
  ): Promise<void>;
  /** Serialises this process's writes per section. */
  readonly firewallWrites: KeyedLock;
}

function lockKey(layer: FirewallLayerName, sectionId: string): string {
  return `dfw:${layer}:${sectionId}`;
}

/** Adds a rule to a section (the manager puts it at the top) and answers the section read back. */
export async function addSectionRule(
  store: SectionStore,
  call: CallContext,
  layer: FirewallLayerName,
  sectionId: string,
  draft: DfwRuleDraft,
  retry: ConflictRetry = defaultConflictRetry,
): Promise<FirewallSectionRecord> {
  await retryOnConflict(store.firewallWrites, lockKey(layer, sectionId), call, retry, async () => {
    const section = await store.getSection(call, layer, sectionId);
    await store.postSectionRule(call, section, dfwRuleXml(draft, section.id));
  });
  return store.getSection(call, layer, sectionId);
}

/** Removes one rule of a section and answers the section read back. */
export async function removeSectionRule(
  store: SectionStore,
  call: CallContext,
  layer: FirewallLayerName,
  sectionId: string,
  ruleId: string,
  retry: ConflictRetry = defaultConflictRetry,
): Promise<FirewallSectionRecord> {
  await retryOnConflict(store.firewallWrites, lockKey(layer, sectionId), call, retry, async () => {
    const section = await store.getSection(call, layer, sectionId);
    if (!section.rules.some((rule) => rule.id === ruleId)) {
      throw new SectionRuleNotFoundError(ruleId, sectionId);
    }
    await store.deleteSectionRule(call, section, ruleId);
  });
  return store.getSection(call, layer, sectionId);
}
