import { startSimServer, sendJson, type RecordedRequest } from '../sim-server.ts';

export interface VroSimulatorOptions {
  port?: number;
  username?: string;
  password?: string;
}

export interface VroSimulator {
  /** API root the gateway is configured with. */
  readonly url: URL;
  readonly username: string;
  readonly password: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Placeholder: answers 404 to everything until the vro simulator is built. */
export async function startVroSimulator(options: VroSimulatorOptions = {}): Promise<VroSimulator> {
  const server = await startSimServer((_request, response) => sendJson(response, 404, {}), options);
  return {
    url: new URL(server.origin),
    username: options.username ?? 'gateway',
    password: options.password ?? 'simulator',
    requests: server.requests,
    close: () => server.close(),
  };
}
