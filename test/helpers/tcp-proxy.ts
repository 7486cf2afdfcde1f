import { connect, createServer, type Socket } from 'node:net';

/** A loopback TCP relay to a port, which the test can cut and restore (a network partition of one client). */
export interface TcpProxy {
  readonly port: number;
  /** Drops every relayed connection and refuses new ones (they are closed at once). */
  cut(): void;
  /** Relays new connections again. */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let open = true;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const target = connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(target);
    const end = (): void => {
      client.destroy();
      target.destroy();
      sockets.delete(client);
      sockets.delete(target);
    };
    for (const socket of [client, target]) {
      socket.on('error', end);
      socket.on('close', end);
    }
    client.pipe(target);
    target.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    restore() {
      open = true;
    },
    close() {
      open = false;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
