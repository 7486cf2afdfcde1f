import { startSimServer, sendJson, type RecordedRequest } from '../sim-server.ts';

export interface VraSimulatorOptions {
  port?: number;
  username?: string;
  password?: string;
  tenant?: string;
}

export interface VraSimulator {
  /** API root the gateway is configured with. */
  readonly url: URL;
  readonly username: string;
  readonly password: string;
  readonly tenant: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Placeholder: answers 404 to everything until the vra simulator is built. */
export async function startVraSimulator(options: VraSimulatorOptions = {}): Promise<VraSimulator> {
  const server = await startSimServer((_request, response) => sendJson(response, 404, {}), options);
  return {
    url: new URL(server.origin),
    username: options.username ?? 'gateway',
    password: options.password ?? 'simulator',
    tenant: options.tenant ?? 'vsphere.local',
    requests: server.requests,
    close: () => server.close(),
  };
}
