import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { ClientAddresses } from '../client-address.ts';
import { requestInfo } from '../request-info.ts';

/**
 * Tells each request's client address once, before anything else reads it
 * (TRUSTED_PROXIES). A request made in-process (no socket) keeps the address
 * it was given, if any (carryClientAddress). A request yoga answers before
 * any plugin's onRequest (GraphiQL's page) is told when its answer is made,
 * before the request log (a later plugin) records it.
 */
export function clientAddress(addresses: ClientAddresses): Plugin {
  const told = new WeakSet<Request>();
  const tell = (request: Request, serverContext: unknown): void => {
    const { req } = serverContext as { req?: IncomingMessage };
    if (req === undefined || told.has(request)) return;
    told.add(request);
    requestInfo(request).clientAddress = addresses.of(
      req.socket.remoteAddress,
      request.headers.get('x-forwarded-for'),
    );
  };
  return {
    onRequest({ request, serverContext }) {
      tell(request, serverContext);
    },
    onResponse({ request, serverContext }) {
      tell(request, serverContext);
    },
  };
}
