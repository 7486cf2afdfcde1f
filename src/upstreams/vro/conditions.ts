export interface WorkflowConditions {
  name?: string | null | undefined;
  nameContains?: string | null | undefined;
  categoryName?: string | null | undefined;
  version?: string | null | undefined;
}

/**
 * The `conditions` query parameter of `GET /workflows`: `field=value` is
 * equality, `field~value` containment, a comma joins them as AND; field names
 * are case-sensitive (docs/upstreams.md, vRO). vRO has no escape for a comma in a
 * value: values come checked by `checkWorkflowFilter` (src/inputs/orchestration.ts).
 * Undefined when nothing is set.
 */
export function buildConditions(filter: WorkflowConditions | undefined): string | undefined {
  if (filter === undefined) return undefined;
  const parts: string[] = [];
  const add = (field: keyof WorkflowConditions, condition: string): void => {
    const value = filter[field];
    if (value !== null && value !== undefined) parts.push(`${condition}${value}`);
  };
  add('name', 'name=');
  add('nameContains', 'name~');
  add('categoryName', 'categoryName=');
  add('version', 'version=');
  return parts.length === 0 ? undefined : parts.join(',');
}

/** The condition that finds one workflow by id (vRO conditions have no OR: one call per id). */
export function idCondition(id: string): string {
  return `id=${id}`;
}
