import { BadUserInputError } from '../../errors.ts';

export interface WorkflowConditions {
  name?: string | null | undefined;
  nameContains?: string | null | undefined;
  categoryName?: string | null | undefined;
  version?: string | null | undefined;
}

/** The longest condition value vRO accepts, in characters (longer ones: 400). */
export const maxConditionValueLength = 255;

/**
 * The `conditions` query parameter of `GET /workflows`: `field=value` is
 * equality, `field~value` containment, a comma joins them as AND; field names
 * are case-sensitive (upstream-facts.md). vRO has no escape for a comma in a
 * value, so such a value is refused rather than sent as a different query.
 * Undefined when nothing is set.
 */
export function buildConditions(filter: WorkflowConditions | null | undefined): string | undefined {
  if (filter === null || filter === undefined) return undefined;
  const parts: string[] = [];
  const add = (argument: keyof WorkflowConditions, condition: string): void => {
    const value = filter[argument];
    if (value === null || value === undefined) return;
    if (value === '')
      throw new BadUserInputError(`filter.${argument} must not be empty.`, 'filter');
    if (!value.isWellFormed()) {
      throw new BadUserInputError(
        `filter.${argument} holds an unpaired surrogate: it is not text that can be sent.`,
        'filter',
      );
    }
    if (value.length > maxConditionValueLength) {
      throw new BadUserInputError(
        `filter.${argument} is longer than vRO accepts: at most ${maxConditionValueLength} characters.`,
        'filter',
      );
    }
    if (value.includes(',')) {
      throw new BadUserInputError(
        `filter.${argument} cannot contain a comma: vRO conditions use it to join conditions.`,
        'filter',
      );
    }
    parts.push(`${condition}${value}`);
  };
  add('name', 'name=');
  add('nameContains', 'name~');
  add('categoryName', 'categoryName=');
  add('version', 'version=');
  return parts.length === 0 ? undefined : parts.join(',');
}

/** The condition that finds one workflow by id (vRO conditions have no OR: one call per id). */
export function idCondition(id: string): string {
  if (id.includes(',')) throw new BadUserInputError('A workflow id cannot contain a comma.', 'id');
  return `id=${id}`;
}
