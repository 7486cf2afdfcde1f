import { BadUserInputError } from '../../errors.ts';
import { bindingIdPattern } from './registration-input.ts';

/**
 * Checks an id of the vRA consumer API (catalog item, request, resource,
 * action: UUIDs on real vRA) before any call: letters, digits and
 * `. _ : ! @ -`, up to 255, nothing that could bend a URL.
 */
export function assertVraId(value: string, argument: string): void {
  if (!bindingIdPattern.test(value)) {
    throw new BadUserInputError(
      `"${argument}" must be a vRA id (a UUID, or letters, digits and . _ : ! @ -).`,
      argument,
    );
  }
}
