import { nameFieldActor } from '../../audit/field-actor.ts';
import type { Caller } from '../../auth/caller.ts';
import { SessionStoreUnavailableError, type Session } from '../../auth/session-store.ts';
import type { GatewayContext } from '../../context.ts';
import {
  BadUserInputError,
  RateLimitedError,
  SessionsUnavailableError,
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

/**
 * Ends the request's session, if it has one: its vRA token is deleted, its
 * cookie cleared; true when it was live. A cookie that did not come to a
 * live session here is ended too (it may live on another replica). When the
 * shared store does not confirm the end, the answer is UPSTREAM_UNAVAILABLE
 * and the cookie stays, so that signing out can be tried again.
 */
async function endSession(context: GatewayContext): Promise<boolean> {
  const { session } = context.auth.caller;
  const cookie = session?.cookie ?? context.auth.unresolvedSession;
  if (cookie === undefined) return false;
  // A copy this replica holds of a session it cannot check now: its vRA token is revoked all the same.
  const vraToken = session?.state.vraToken ?? context.identity.sessions.heldCopy(cookie)?.vraToken;
  const ended = await context.identity.sessions.end(cookie).then(
    () => true,
    (error: unknown) => {
      if (error instanceof SessionStoreUnavailableError) return false;
      throw error;
    },
  );
  if (vraToken !== undefined) {
    // Deleted with the call's own credential: the token is revoked even if the session store is not shared.
    await context.clients.vra.deleteToken(context.call, vraToken).catch(() => {});
  }
  if (!ended) {
    throw new SessionsUnavailableError(
      'The session could not be ended on every replica: the shared session store is unavailable. Sign out again shortly.',
    );
  }
  const clear = context.identity.cookies.clear();
  // An ended cookie was cleared already, before the operation ran.
  if (!context.auth.setCookies.includes(clear)) context.auth.setCookies.push(clear);
  return session !== undefined;
}

/** Starts the session of a vRA token just issued; if it cannot start, the token is deleted. */
async function startSession(context: GatewayContext, state: Session): Promise<string> {
  const { identity } = context;
  try {
    await endSession(context);
    return await identity.sessions.create(state);
  } catch (error) {
    await context.clients.vra.deleteToken(context.call, state.vraToken).catch(() => {});
    if (error instanceof SessionStoreUnavailableError) {
      throw new SessionsUnavailableError(
        'The session cannot be started: the shared session store is unavailable. Sign in again shortly.',
      );
    }
    throw error;
  }
}

export const Mutation: MutationResolvers = {
  async signIn(_source, args, context, info) {
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
    nameFieldActor(info, { name: username, via: 'anonymous' });
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
    const state = { username, tenant, vraToken: issued.id, expiresAt: issued.expiresAt };
    const cookie = await startSession(context, state);
    auth.setCookies.push(identity.cookies.issue(cookie, issued.expiresAt));
    const caller: Caller = {
      name: username,
      via: 'session',
      scopes: identity.sessionScopes,
      ...(tenant === '' ? {} : { tenant }),
      expiresAt: issued.expiresAt,
      session: { cookie, state },
    };
    nameFieldActor(info, { name: username, via: 'session' });
    return caller;
  },

  async signOut(_source, _args, context) {
    return endSession(context);
  },
};
