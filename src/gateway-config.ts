import type { Config, NsxConfig, UpstreamConfig, VraConfig, VroConfig } from './config.ts';

type Resolved<T extends UpstreamConfig> = Omit<T, 'url'> & { url: URL };

/** The configuration once every upstream has an address (a real one or a simulator's). */
export interface GatewayConfig extends Omit<Config, 'vro' | 'vra' | 'nsx'> {
  vro: Resolved<VroConfig>;
  vra: Resolved<VraConfig>;
  nsx: Resolved<NsxConfig>;
}
