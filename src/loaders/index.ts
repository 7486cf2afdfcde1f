import type { CallContext } from '../http/upstream-http.ts';
import type { Clients } from '../upstreams/index.ts';
import { createNsxLoaders, type NsxLoaders } from './nsx.ts';
import { createVraLoaders, type VraLoaders } from './vra.ts';
import { createVroLoaders, type VroLoaders } from './vro.ts';

/** DataLoaders of one GraphQL request: never shared between requests (or users). */
export interface Loaders {
  vro: VroLoaders;
  vra: VraLoaders;
  nsx: NsxLoaders;
}

/** Each upstream's loaders are made on first use: most operations need one upstream. */
export function createLoaders(clients: Clients, call: CallContext): Loaders {
  let vro: VroLoaders | undefined;
  let vra: VraLoaders | undefined;
  let nsx: NsxLoaders | undefined;
  return {
    get vro() {
      return (vro ??= createVroLoaders(clients.vro, call));
    },
    get vra() {
      return (vra ??= createVraLoaders(clients.vra, call));
    },
    get nsx() {
      return (nsx ??= createNsxLoaders(clients.nsx, call));
    },
  };
}
