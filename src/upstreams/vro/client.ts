import type { GatewayConfig } from '../../gateway-config.ts';
import { UpstreamHttp } from '../../http/upstream-http.ts';

/** Typed calls to the vro upstream. Placeholder: filled in by the vro work. */
export class VroClient {
  readonly #http: UpstreamHttp;
  constructor(http: UpstreamHttp) {
    this.#http = http;
  }
  close(): Promise<void> {
    return this.#http.close();
  }
}

export function createVroClient(config: GatewayConfig): VroClient {
  return new VroClient(
    new UpstreamHttp({
      service: 'vro',
      baseUrl: config.vro.url,
      timeoutMs: config.upstreamTimeoutMs,
      readErrorBody: () => ({ code: null, message: null }),
    }),
  );
}
