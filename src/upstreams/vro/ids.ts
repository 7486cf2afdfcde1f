/**
 * vRO ids: UUIDs for user workflows, 32-hex for executions, and long non-UUID
 * ids for built-in library workflows (`BD8080...`, `com.vmware.library...`).
 * Nothing that could add a path segment, a query or a condition.
 */
export const vroIdPattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

/** True for what can be a vRO id (also used on ids vRO itself answers). */
export function isVroId(id: string): boolean {
  return vroIdPattern.test(id);
}
