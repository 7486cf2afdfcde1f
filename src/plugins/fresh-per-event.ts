import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.ts';
import { createLoaders } from '../loaders/index.ts';

/**
 * A subscription keeps one context for all its events, but each event must
 * see the upstreams as they are then: after every event its loaders are made
 * anew and its memo of identical reads is forgotten, so that the next event's
 * fields (a request's resources, a run's logs) are read again.
 */
export function freshPerEvent(): Plugin<GatewayContext> {
  return {
    onSubscribe: ({ args }) => ({
      onSubscribeResult: () => ({
        onNext: () => {
          const context = args.contextValue;
          context.call.operation?.forget();
          context.loaders = createLoaders(context.clients, context.call);
        },
      }),
    }),
  };
}
