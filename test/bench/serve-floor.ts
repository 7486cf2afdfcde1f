import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pool } from 'undici';

/**
 * Runs a bench-only floor server (bare proxy, bare yoga) as the bench expects:
 * kept-alive connections, {"url":"http://127.0.0.1:<port>"} on stdout once
 * listening, and SIGTERM closing the server, then its upstream pool.
 */
export function serveFloor(server: Server, pool: Pool): void {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => void pool.close().then(() => process.exit(0)));
  });
}
