import type { Caller } from '../../auth/caller.ts';
import type { GatewayContext } from '../../context.ts';
import {
  BadUserInputError,
  RateLimitedError,
  UnauthenticatedError,
  UpstreamStatusError,
} from '../../errors.ts';
import type { MutationResolvers } from '../../generated/graphql.ts';

/** vRA's identity service refused the credentials themselves (not an outage). */
function refusedCredentials(error: unknown): boolean {
  return error instanceof UpstreamStatusError && (error.status === 400 || error.status === 401);
}

function checkedText(value: string, argument: string, max: number): string {
  if (value.trim() === '' || value.length > max) {
    throw new BadUserInputError(`${argument} must be 1 to ${max} characters.`, argument);
  }
  return value;
}

/** Ends the request's session, if it has one: its vRA token is deleted, its cookie cleared. */
async function endSession(context: GatewayContext): Promise<boolean> {
  const { session } = context.auth.caller;
  if (session === undefined) return false;
  await context.identity.sessions.end(session.cookie);
  context.auth.setCookies.push(context.identity.cookies.clear());
  // Deleted with the call's own credential: the token is revoked even if the session store is not shared.
  await context.clients.vra.deleteToken(context.call, session.state.vraToken).catch(() => {});
  return true;
}

export const Mutation: MutationResolvers = {
  async signIn(_source, args, context) {
    const username = checkedText(args.username, 'username', 256).trim();
    const password = checkedText(args.password, 'password', 1024);
    // vRA 8 needs no tenant (its CSP domain is optional): '' signs in without one.
    const tenant =
      args.tenant?.trim() ||
      context.config.vra.tenant ||
      ((await context.clients.vra.tenantRequired(context.call)) ? undefined : '');
    if (tenant === undefined) {
      throw new BadUserInputError('tenant is required: the gateway has no VRA_TENANT.', 'tenant');
    }
    const { identity, auth } = context;
    auth.actor = { name: username, via: 'anonymous' };
    // A place is taken before vRA is asked, and kept unless vRA accepts: an attempt that
    // fails, or whose answer never came, counts.
    const reservation = await identity.signInLimiter.reserve(username, auth.clientAddress);
    if (!reservation.granted) {
      const wait = reservation.retryAfter;
      throw new RateLimitedError(`Too many failed sign-ins: try again in ${wait} s.`, wait);
    }
    let issued;
    try {
      issued = await context.clients.vra.signIn(context.call, { username, password, tenant });
    } catch (error) {
      if (!refusedCredentials(error)) throw error;
      throw new UnauthenticatedError('The user name, password or tenant is not accepted by vRA.');
    }
    await reservation.attempt.succeeded();
    await endSession(context);
    const state = { username, tenant, vraToken: issued.id, expiresAt: issued.expiresAt };
    const cookie = await identity.sessions.create(state);
    auth.setCookies.push(identity.cookies.issue(cookie, issued.expiresAt));
    const caller: Caller = {
      name: username,
      via: 'session',
      scopes: identity.sessionScopes,
      ...(tenant === '' ? {} : { tenant }),
      expiresAt: issued.expiresAt,
      session: { cookie, state },
    };
    auth.actor = { name: username, via: 'session' };
    return caller;
  },

  async signOut(_source, _args, context) {
    return endSession(context);
  },
};
