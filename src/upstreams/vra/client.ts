import type { GatewayConfig } from '../../gateway-config.ts';
import { UpstreamHttp } from '../../http/upstream-http.ts';

/** Typed calls to the vra upstream. Placeholder: filled in by the vra work. */
export class VraClient {
  readonly #http: UpstreamHttp;
  constructor(http: UpstreamHttp) {
    this.#http = http;
  }
  close(): Promise<void> {
    return this.#http.close();
  }
}

export function createVraClient(config: GatewayConfig): VraClient {
  return new VraClient(
    new UpstreamHttp({
      service: 'vra',
      baseUrl: config.vra.url,
      timeoutMs: config.upstreamTimeoutMs,
      readErrorBody: () => ({ code: null, message: null }),
    }),
  );
}
