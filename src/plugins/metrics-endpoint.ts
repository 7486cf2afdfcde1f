import type { Plugin } from 'graphql-yoga';
import type { Metrics } from '../observability/metrics.ts';
import { servePath } from './serve-path.ts';

/** `/metrics` in the Prometheus text format. */
export function metricsEndpoint(metrics: Metrics, path = '/metrics'): Plugin {
  return servePath(
    (pathname) => pathname === path,
    async () =>
      new Response(await metrics.registry.metrics(), {
        headers: { 'content-type': metrics.registry.contentType },
      }),
  );
}
