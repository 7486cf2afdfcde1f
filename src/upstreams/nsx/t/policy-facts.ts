/**
 * What NSX-T's Policy API tells of an object that NSX-v has no counterpart
 * of. Every record the NSX-T client fills carries these as `policy`
 * (../wire.ts); NSX-v's records have none, so a field resolved from them is
 * null there. An NSX-T-only field is added here, read in `readPolicyObject`
 * (wire.ts) and resolved as `record.policy?.<field> ?? null`: no
 * generation-neutral file changes. This module imports nothing, so that the
 * neutral records can name it without an import circle.
 */
export interface PolicyFacts {
  /** The object's policy path, e.g. `/infra/domains/default/groups/web-servers`. */
  path: string | null;
}
