/**
 * vRO query conditions: `field=value` (equals) or `field~value` (contains),
 * comma-separated, all must hold. Field names are case-sensitive and must be
 * attribute names; values compare case-insensitively (docs/upstreams.md, vRO).
 */
export interface Condition {
  field: string;
  operator: '=' | '~';
  value: string;
}

export const conditionFields: ReadonlySet<string> = new Set([
  'id',
  'name',
  'description',
  'version',
  'categoryName',
  'categoryHref',
  'canExecute',
  'canEdit',
  'customIcon',
  'type',
  'itemHref',
]);

/** vRO refuses a longer condition value (in characters) with a 400. */
const longestValue = 255;

/** The conditions, or the reason the server refuses them (a 400). */
export function parseConditions(raw: string): Condition[] | { error: string } {
  const conditions: Condition[] = [];
  for (const part of raw.split(',')) {
    const match = /^([^=~]*)([=~])(.*)$/s.exec(part);
    if (match === null)
      return { error: `Invalid condition '${part}': expected field=value or field~value` };
    const [, field = '', operator, value = ''] = match;
    if (!conditionFields.has(field))
      return { error: `Unknown field '${field}' in condition '${part}'` };
    if (value.length > longestValue)
      return { error: `Condition value for '${field}' is longer than ${longestValue} characters` };
    conditions.push({ field, operator: operator === '~' ? '~' : '=', value });
  }
  return conditions;
}

export function matchesConditions(
  attributes: Readonly<Record<string, string>>,
  conditions: readonly Condition[],
): boolean {
  return conditions.every(({ field, operator, value }) => {
    const actual = (attributes[field] ?? '').toLowerCase();
    const wanted = value.toLowerCase();
    return operator === '=' ? actual === wanted : actual.includes(wanted);
  });
}
