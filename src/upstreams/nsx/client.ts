import type { GatewayConfig } from '../../gateway-config.ts';
import { UpstreamHttp } from '../../http/upstream-http.ts';

/** Typed calls to the nsx upstream. Placeholder: filled in by the nsx work. */
export class NsxClient {
  readonly #http: UpstreamHttp;
  constructor(http: UpstreamHttp) {
    this.#http = http;
  }
  close(): Promise<void> {
    return this.#http.close();
  }
}

export function createNsxClient(config: GatewayConfig): NsxClient {
  return new NsxClient(
    new UpstreamHttp({
      service: 'nsx',
      baseUrl: config.nsx.url,
      timeoutMs: config.upstreamTimeoutMs,
      readErrorBody: () => ({ code: null, message: null }),
    }),
  );
}
