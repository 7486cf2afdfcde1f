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
  return new LazyLoaders(clients, call);
}

class LazyLoaders implements Loaders {
  readonly #clients: Clients;
  readonly #call: CallContext;
  #vro: VroLoaders | undefined;
  #vra: VraLoaders | undefined;
  #nsx: NsxLoaders | undefined;

  constructor(clients: Clients, call: CallContext) {
    this.#clients = clients;
    this.#call = call;
  }

  get vro(): VroLoaders {
    return (this.#vro ??= createVroLoaders(this.#clients.vro, this.#call));
  }

  get vra(): VraLoaders {
    return (this.#vra ??= createVraLoaders(this.#clients.vra, this.#call));
  }

  get nsx(): NsxLoaders {
    return (this.#nsx ??= createNsxLoaders(this.#clients.nsx, this.#call));
  }
}
