import type { GatewayConfig } from '../gateway-config.ts';
import type { CallContext } from '../http/upstream-http.ts';
import type { VraClient } from '../upstreams/vra/client.ts';

export type VraLoaders = Record<string, never>;

export function createVraLoaders(
  _client: VraClient,
  _call: CallContext,
  _config: GatewayConfig,
): VraLoaders {
  return {};
}
