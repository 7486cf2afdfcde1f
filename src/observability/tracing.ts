import { AsyncLocalStorage } from 'node:async_hooks';
import {
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Exception,
  type Span,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { redactSecrets } from '../http/redact.ts';
import type { UpstreamAttempt, UpstreamCallEvent, UpstreamTracer } from '../http/upstream-http.ts';

const serviceName = 'vmw-graphql-gateway';

export interface OperationSpanStart {
  /** `query`, `mutation` or `subscription`. */
  type: string;
  /** The operation's name; undefined for an anonymous operation. */
  name: string | undefined;
  requestId: string;
  /** The client's request headers: with a W3C `traceparent` (and `tracestate`), the operation joins that trace. */
  headers: Headers;
}

/** The OTLP/HTTP traces URL for an `OTEL_EXPORTER_OTLP_ENDPOINT` (the signal path is appended, as the variable means). */
function tracesUrl(endpoint: URL): string {
  const base = endpoint.href.replace(/\/+$/, '');
  return base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
}

const propagator = new W3CTraceContextPropagator();

const headersGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

/**
 * Traces of the gateway: one span per GraphQL operation and a child span per
 * upstream call attempt, exported over OTLP/HTTP (JSON) in batches. The
 * operation's context is carried through its resolvers by an
 * AsyncLocalStorage of this instance (no global OpenTelemetry state, so
 * several gateways in one process keep their traces apart).
 */
export class Tracing {
  readonly #provider: BasicTracerProvider;
  readonly #tracer: Tracer;
  readonly #active = new AsyncLocalStorage<Context>();

  constructor(endpoint: URL) {
    this.#provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': serviceName }),
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(endpoint) }))],
    });
    this.#tracer = this.#provider.getTracer(serviceName);
  }

  /** Starts the span of one GraphQL operation (a child of the client's trace when it sent one). */
  startOperation(start: OperationSpanStart): Span {
    // The client chose the name and the request id: no secret of the process goes out in them.
    const name = start.name === undefined ? undefined : redactSecrets(start.name);
    const attributes: Attributes = {
      'graphql.operation.type': start.type,
      'gateway.request.id': redactSecrets(start.requestId),
    };
    if (name !== undefined) attributes['graphql.operation.name'] = name;
    return this.#tracer.startSpan(
      name ?? start.type,
      { kind: SpanKind.SERVER, attributes },
      propagator.extract(ROOT_CONTEXT, start.headers, headersGetter),
    );
  }

  /** Runs `fn` with `span` as the parent of every upstream call it makes, however deep. */
  within<T>(span: Span, fn: () => T): T {
    return this.#active.run(trace.setSpan(ROOT_CONTEXT, span), fn);
  }

  /** The seam hook: a client span per upstream call attempt, and its `traceparent`. */
  readonly upstream: UpstreamTracer = (attempt: UpstreamAttempt) => {
    const attributes: Attributes = {
      'peer.service': attempt.service,
      'http.request.method': attempt.method,
      'url.template': attempt.route,
      'gateway.request.id': redactSecrets(attempt.requestId),
    };
    if (attempt.attempt > 1) attributes['http.request.resend_count'] = attempt.attempt - 1;
    const span = this.#tracer.startSpan(
      `${attempt.method} ${attempt.route}`,
      { kind: SpanKind.CLIENT, attributes },
      this.#active.getStore() ?? ROOT_CONTEXT,
    );
    const headers: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
    return {
      headers,
      end: (event: UpstreamCallEvent) => {
        if (event.status !== null) span.setAttribute('http.response.status_code', event.status);
        span.setAttribute('gateway.upstream.outcome', event.outcome);
        if (event.outcome !== 'ok') {
          span.setAttribute(
            'error.type',
            event.status === null ? event.outcome : `${event.status}`,
          );
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      },
    };
  };

  /** Exports every finished span now. */
  forceFlush(): Promise<void> {
    return this.#provider.forceFlush();
  }

  /**
   * Exports what is left and stops. Traces are best effort: a collector that
   * is down delays this by at most the exporter's timeout, and fails nothing.
   */
  async shutdown(): Promise<void> {
    await this.#provider.shutdown().catch(() => undefined);
  }
}

/** An error as a span event, with every secret of the process taken out of its text. */
export function redactedException(error: unknown): Exception {
  if (!(error instanceof Error)) return redactSecrets(String(error));
  return {
    name: error.name,
    message: redactSecrets(error.message),
    ...(error.stack === undefined ? {} : { stack: redactSecrets(error.stack) }),
  };
}
