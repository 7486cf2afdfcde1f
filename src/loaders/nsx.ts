import type { CallContext } from '../http/upstream-http.ts';
import type { NsxClient } from '../upstreams/nsx/client.ts';

export type NsxLoaders = Record<string, never>;

export function createNsxLoaders(_client: NsxClient, _call: CallContext): NsxLoaders {
  return {};
}
