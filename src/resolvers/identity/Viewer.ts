import type { AuthMethod, ViewerResolvers } from '../../generated/graphql.ts';

const methods = {
  session: 'SESSION',
  jwt: 'JWT',
  token: 'TOKEN',
  anonymous: 'ANONYMOUS',
} as const satisfies Record<string, AuthMethod>;

/** A caller as the schema shows it. */
export const Viewer: ViewerResolvers = {
  name: (caller) => caller.name,
  via: (caller) => methods[caller.via],
  // A vRA 8 session signed in without a CSP domain keeps '' as its tenant: none.
  tenant: (caller) => (caller.tenant === undefined || caller.tenant === '' ? null : caller.tenant),
  scopes: (caller) => [...caller.scopes].sort(),
  expiresAt: (caller) =>
    caller.expiresAt === undefined ? null : new Date(caller.expiresAt).toISOString(),
};
