import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';
import type { AllowedHost } from '../config.ts';
import { refuseRaw } from './error-response.ts';

/**
 * True when the gateway answers to this `Host` header: an IP literal
 * (`127.0.0.1:4000`, `[::1]`), `localhost`, or a name of ALLOWED_HOSTS (with
 * its port when the entry names one). No header at all (HTTP/1.0) is no
 * browser's request: it passes.
 */
export function hostAllowed(host: string | undefined, allowed: readonly AllowedHost[]): boolean {
  if (host === undefined) return true;
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d{1,5}))?$/.exec(host.trim().toLowerCase());
  if (match === null) return false;
  const [, literal = '', portText] = match;
  if (literal.startsWith('[')) return isIPv6(literal.slice(1, -1));
  const name = literal.replace(/\.$/, '');
  if (isIPv4(name) || name === 'localhost') return true;
  const port = portText === undefined ? undefined : Number(portText);
  return allowed.some((a) => a.name === name && (a.port === undefined || a.port === port));
}

/**
 * DNS rebinding: a page of `http://evil.test` whose name is made to resolve to
 * 127.0.0.1 is same-origin with itself, so its browser sends the gateway
 * `Host: evil.test` and `Origin: http://evil.test`, which the origin checks
 * take for the gateway's own page. Only names the gateway knows are answered:
 * any other gets 421 before yoga sees the request, so every path is covered,
 * `/health` and GraphiQL included (yoga serves those before any plugin).
 */
export function checkHosts(
  allowed: readonly AllowedHost[],
  listener: RequestListener,
): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    const { host } = request.headers;
    if (hostAllowed(host, allowed)) {
      listener(request, response);
      return;
    }
    const shown = (host ?? '').slice(0, 100);
    refuseRaw(
      response,
      421,
      'FORBIDDEN',
      `This gateway does not answer to the host name "${shown}": only IP addresses, localhost and the names of ALLOWED_HOSTS.`,
    );
    request.resume();
  };
}
