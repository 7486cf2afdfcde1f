import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.ts';

/**
 * A query or mutation spends one budget of UPSTREAM_TIMEOUT_MS on all its
 * upstream work, counted from the request's arrival (context.ts). A
 * subscription outlives it: its calls (the first read, each event's fields)
 * keep each its own deadline.
 */
export function requestBudget(): Plugin<GatewayContext> {
  return {
    onSubscribe({ args }) {
      const { budget } = args.contextValue.call;
      if (budget !== undefined) budget.endsAt = Infinity;
    },
  };
}
