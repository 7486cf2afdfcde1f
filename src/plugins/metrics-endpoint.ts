import type { Plugin } from 'graphql-yoga';
import type { Metrics } from '../observability/metrics.ts';

/** `/metrics` in the Prometheus text format. */
export function metricsEndpoint(metrics: Metrics, path = '/metrics'): Plugin {
  return {
    async onRequest(payload) {
      if (payload.url.pathname !== path) return;
      const body = await metrics.registry.metrics();
      payload.endResponse(
        new Response(body, { headers: { 'content-type': metrics.registry.contentType } }),
      );
    },
  };
}
