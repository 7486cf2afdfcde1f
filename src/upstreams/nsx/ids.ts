/** What an NSX id can be: safe as one path segment. */
export const idPattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** True for what can be an NSX id (also used on ids the manager itself answers). */
export function isNsxId(value: string): boolean {
  return idPattern.test(value);
}
