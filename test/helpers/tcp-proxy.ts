import { connect, createServer, type Socket } from 'node:net';

/**
 * Where a one-shot cut falls relative to the client's chunk that triggers it:
 * `before` it reaches the server (the command is never run), or `reply` (the
 * server runs it, its answer never reaches the client).
 */
export type CutPoint = 'before' | 'reply';

/** A loopback TCP relay to a port, which the test can cut and restore (a network partition of one client). */
export interface TcpProxy {
  readonly port: number;
  /** Drops every relayed connection and refuses new ones (they are closed at once). */
  cut(): void;
  /** Relays new connections again. */
  restore(): void;
  /**
   * Cuts (as `cut`) once a chunk a client sends matches: a fault injected in
   * the middle of an operation. Resolves when it has cut.
   */
  cutWhen(match: (chunk: Buffer) => boolean, point: CutPoint): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let open = true;
  const sockets = new Set<Socket>();
  let trigger: { match: (chunk: Buffer) => boolean; point: CutPoint; cut: () => void } | undefined;
  const cut = (): void => {
    open = false;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  const server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const target = connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(target);
    let replyCuts: (() => void) | undefined;
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
    client.on('data', (chunk: Buffer) => {
      const armed = trigger;
      if (armed !== undefined && armed.match(chunk)) {
        trigger = undefined;
        if (armed.point === 'before') {
          armed.cut();
          return;
        }
        replyCuts = armed.cut;
      }
      target.write(chunk);
    });
    target.on('data', (chunk: Buffer) => {
      if (replyCuts !== undefined) {
        replyCuts();
        return;
      }
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    cut,
    restore() {
      open = true;
    },
    cutWhen(match, point) {
      return new Promise<void>((resolve) => {
        trigger = {
          match,
          point,
          cut: () => {
            cut();
            resolve();
          },
        };
      });
    },
    close() {
      open = false;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
