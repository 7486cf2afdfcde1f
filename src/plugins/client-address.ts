import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { ClientAddresses } from '../client-address.ts';
import { requestInfo } from '../request-info.ts';

/**
 * Tells each request's client address once, before anything else reads it
 * (TRUSTED_PROXIES). A request made in-process (no socket) keeps the address
 * it was given, if any (carryClientAddress).
 */
export function clientAddress(addresses: ClientAddresses): Plugin {
  return {
    onRequest({ request, serverContext }) {
      const { req } = serverContext as { req?: IncomingMessage };
      if (req === undefined) return;
      requestInfo(request).clientAddress = addresses.of(
        req.socket.remoteAddress,
        request.headers.get('x-forwarded-for'),
      );
    },
  };
}
