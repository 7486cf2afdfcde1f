import type { UpstreamService } from '../errors.ts';
import type { GatewayConfig } from '../gateway-config.ts';
import { defaultResilience } from './resilience-defaults.ts';
import {
  type UpstreamCallEvent,
  type UpstreamHttpOptions,
  type UpstreamTracer,
} from './upstream-http.ts';

/** Process-wide hooks every upstream seam reports to. */
export interface UpstreamHooks {
  observer?: (event: UpstreamCallEvent) => void;
  tracer?: UpstreamTracer;
}

/** The seam settings every upstream shares, from the configuration: address, timeout, TLS, resilience. */
export function upstreamHttpOptions(
  config: GatewayConfig,
  service: UpstreamService,
  hooks: UpstreamHooks = {},
): Omit<UpstreamHttpOptions, 'readErrorBody'> {
  const upstream = config[service];
  const { resilience } = config;
  const options: Omit<UpstreamHttpOptions, 'readErrorBody'> = {
    service,
    baseUrl: upstream.url,
    timeoutMs: config.upstreamTimeoutMs,
    retry: { ...defaultResilience.retry, retries: resilience.retries },
    circuit: {
      failureThreshold: resilience.circuitFailureThreshold,
      resetMs: resilience.circuitResetMs,
    },
    paging: { maxPages: resilience.maxPages, maxBytes: resilience.maxListBytes },
    concurrency: {
      maxConcurrent: resilience.maxConcurrent,
      maxQueue: resilience.maxQueue,
      ...(resilience.minConcurrent === undefined
        ? {}
        : { minConcurrent: resilience.minConcurrent }),
    },
  };
  if (upstream.ca !== undefined || upstream.tlsInsecure) {
    options.tls = {
      ...(upstream.ca === undefined ? {} : { ca: upstream.ca }),
      rejectUnauthorized: !upstream.tlsInsecure,
    };
  }
  if (hooks.observer !== undefined) options.observer = hooks.observer;
  if (hooks.tracer !== undefined) options.tracer = hooks.tracer;
  return options;
}
