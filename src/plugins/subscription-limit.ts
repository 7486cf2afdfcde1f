import { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { callerKey } from '../auth/caller-key.ts';
import { requestAuth } from '../auth/request-auth.ts';
import { credentialKey } from '../credentials.ts';
import { requestInfo } from '../request-info.ts';
import { bearerTokenOf } from './client-auth.ts';

/**
 * Who a subscription counts against: the caller (see callerKey), else its
 * bearer token when the gateway requires one (kept as a digest: the token
 * itself is not held), else its address.
 */
function clientOf(context: { request: Request }, byToken: boolean): string {
  const auth = requestAuth(context.request);
  if (byToken && (auth === undefined || auth.caller.via === 'anonymous')) {
    const token = bearerTokenOf(context.request.headers.get('authorization'));
    if (token !== undefined) return `token:${credentialKey(token)}`;
  }
  return callerKey(auth, requestInfo(context.request).clientAddress ?? undefined);
}

/**
 * At most `max` open subscriptions per client (MAX_SUBSCRIPTIONS_PER_CLIENT):
 * each holds a connection and, per execution, a poller of vRO. One over the
 * cap is refused before it starts (HTTP 429, GRAPHQL_VALIDATION_FAILED, as
 * any operation over a limit); a subscription frees its place when it ends,
 * however it ends (completed, failed, or its client went away).
 */
export function subscriptionLimit(max: number, byToken: boolean): Plugin {
  const open = new Map<string, number>();
  return {
    onSubscribe({ args }) {
      const client = clientOf(args.contextValue, byToken);
      const count = open.get(client) ?? 0;
      if (count >= max) {
        throw new GraphQLError(
          `This client already has ${count} open subscription${count === 1 ? '' : 's'}, the most MAX_SUBSCRIPTIONS_PER_CLIENT allows: close one before opening another.`,
          { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 429 } } },
        );
      }
      open.set(client, count + 1);
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        const left = (open.get(client) ?? 1) - 1;
        if (left > 0) open.set(client, left);
        else open.delete(client);
      };
      return {
        onSubscribeResult({ result }) {
          if (!isAsyncIterable(result)) {
            release();
            return undefined;
          }
          return { onEnd: release };
        },
        onSubscribeError: release,
      };
    },
  };
}
