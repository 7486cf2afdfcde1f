import { BadUserInputError } from '../../errors.ts';

/**
 * vRO ids: UUIDs for user workflows, 32-hex for executions, and long non-UUID
 * ids for built-in library workflows (`BD8080...`, `com.vmware.library...`).
 * Nothing that could add a path segment, a query or a condition.
 */
const safeId = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

export function isSafeVroId(id: string): boolean {
  return safeId.test(id);
}

/** Throws BAD_USER_INPUT (before any call) for an id that cannot be a vRO id. */
export function assertVroId(id: string, argument: string): void {
  if (!isSafeVroId(id)) {
    throw new BadUserInputError(
      `${argument} is not a valid vRO id: letters, digits, '.', '_', ':' and '-' only, at most 200.`,
      argument,
    );
  }
}
