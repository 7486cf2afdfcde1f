import type { Config, NsxConfig, UpstreamConfig, VraConfig } from './config.ts';

type Resolved<T extends UpstreamConfig> = Omit<T, 'url'> & { url: URL };

/** The configuration once every upstream has an address (a real one or a simulator's). */
export interface GatewayConfig extends Omit<Config, 'vro' | 'vra' | 'nsx'> {
  vro: Resolved<UpstreamConfig>;
  vra: Resolved<VraConfig>;
  nsx: Resolved<NsxConfig>;
}
