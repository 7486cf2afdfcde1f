/** What a caller may do (runtime contract, added 2026-11-27); each root field requires one. */
export const allScopes = [
  'catalog:admin',
  'catalog:request',
  'network:write',
  'package:import',
  'read',
  'workflow:run',
] as const;

export type Scope = (typeof allScopes)[number];

const known: ReadonlySet<string> = new Set(allScopes);

export function isScope(name: string): name is Scope {
  return known.has(name);
}
