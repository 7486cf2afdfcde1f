import type { CallContext } from '../http/upstream-http.ts';
import type { VroClient } from '../upstreams/vro/client.ts';

export type VroLoaders = Record<string, never>;

export function createVroLoaders(_client: VroClient, _call: CallContext): VroLoaders {
  return {};
}
