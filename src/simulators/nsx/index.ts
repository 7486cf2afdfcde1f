import { startSimServer, sendJson, type RecordedRequest } from '../sim-server.ts';

export interface NsxSimulatorOptions {
  port?: number;
  username?: string;
  password?: string;
}

export interface NsxSimulator {
  /** API root the gateway is configured with. */
  readonly url: URL;
  readonly username: string;
  readonly password: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Placeholder: answers 404 to everything until the nsx simulator is built. */
export async function startNsxSimulator(options: NsxSimulatorOptions = {}): Promise<NsxSimulator> {
  const server = await startSimServer((_request, response) => sendJson(response, 404, {}), options);
  return {
    url: new URL(server.origin),
    username: options.username ?? 'gateway',
    password: options.password ?? 'simulator',
    requests: server.requests,
    close: () => server.close(),
  };
}
