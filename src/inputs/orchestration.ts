/**
 * The orchestration operations' arguments (vRO), checked before any call to
 * the orchestration server: each check answers the value the client sends,
 * or throws BAD_USER_INPUT naming the argument. Run inputs: workflow-inputs.ts.
 */
import type { WorkflowFilter } from '../generated/graphql.ts';
import type { WorkflowConditions } from '../upstreams/vro/conditions.ts';
import { vroIdPattern } from '../upstreams/vro/ids.ts';
import { checkPattern, refuse } from './check.ts';

/** The longest condition value vRO accepts, in characters (longer ones: 400). */
const longestConditionValue = 255;

/** A workflow or execution id. */
export function checkVroId(value: string, argument: string): string {
  return checkPattern(
    value,
    vroIdPattern,
    argument,
    "is not a valid vRO id: letters, digits, '.', '_', ':' and '-' only, at most 200",
  );
}

/**
 * The `workflows` filter: each value set is sent as a vRO condition, which
 * has no escape for the comma that joins conditions, and no empty form.
 */
export function checkWorkflowFilter(
  filter: WorkflowFilter | null | undefined,
): WorkflowConditions | undefined {
  if (filter === null || filter === undefined) return undefined;
  const check = (field: keyof WorkflowConditions): string | undefined => {
    const value = filter[field];
    if (value === null || value === undefined) return undefined;
    const argument = `filter.${field}`;
    if (value === '') refuse(argument, `${argument} must not be empty.`);
    if (!value.isWellFormed()) {
      refuse(argument, `${argument} holds an unpaired surrogate: it is not text that can be sent.`);
    }
    if (value.length > longestConditionValue) {
      refuse(
        argument,
        `${argument} is longer than vRO accepts: at most ${longestConditionValue} characters.`,
      );
    }
    if (value.includes(',')) {
      refuse(
        argument,
        `${argument} cannot contain a comma: vRO conditions use it to join conditions.`,
      );
    }
    return value;
  };
  return {
    name: check('name'),
    nameContains: check('nameContains'),
    categoryName: check('categoryName'),
    version: check('version'),
  };
}

/** A package to import: a file with something in it. */
export function checkPackageFile<T extends { readonly size: number }>(file: T): T {
  if (file.size === 0) refuse('file', 'The package file is empty.');
  return file;
}
