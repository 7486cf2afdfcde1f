import { BlockList, isIP } from 'node:net';

/** One TRUSTED_PROXIES entry: an address, or a CIDR range (`10.0.0.0/8`, `fd00::/8`). */
export interface ProxyRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** An entry as written in TRUSTED_PROXIES, or undefined when it is neither an address nor a CIDR range. */
export function proxyRange(entry: string): ProxyRange | undefined {
  const match = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(entry);
  if (match === null) return undefined;
  const address = match[1] ?? '';
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  const prefix = match[2] === undefined ? max : Number(match[2]);
  return prefix <= max ? { address, prefix, family } : undefined;
}

/** `::ffff:192.0.2.1` (an IPv4 peer of a dual-stack socket) is `192.0.2.1`. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped?.[1] ?? address;
}

/** One X-Forwarded-For entry as an address (a port or IPv6 brackets some proxies add are dropped). */
function forwardedAddress(entry: string): string | undefined {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(entry)?.[1];
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(entry)?.[1];
  const address = bracketed ?? withPort ?? entry;
  return isIP(address) === 0 ? undefined : plain(address);
}

/**
 * Who the client of a connection is (TRUSTED_PROXIES). The socket's peer,
 * unless that peer is a trusted reverse proxy: then X-Forwarded-For is walked
 * from the right, past every trusted proxy, and the first address that is not
 * one is the client. What an untrusted peer says in X-Forwarded-For is never
 * believed; an entry that is not an address stops the walk at the last hop
 * known for sure.
 */
export class ClientAddresses {
  readonly #trusted = new BlockList();
  readonly #any: boolean;

  constructor(trusted: readonly ProxyRange[]) {
    for (const range of trusted) {
      this.#trusted.addSubnet(range.address, range.prefix, range.family);
    }
    this.#any = trusted.length > 0;
  }

  of(peer: string | undefined, forwardedFor: string | null): string | null {
    if (peer === undefined || isIP(peer) === 0) return null;
    let client = plain(peer);
    if (!this.#any || forwardedFor === null) return client;
    const hops = forwardedFor.split(',').map((hop) => hop.trim());
    while (this.#isTrusted(client)) {
      const hop = hops.pop();
      if (hop === undefined) break;
      const address = forwardedAddress(hop);
      if (address === undefined) break;
      client = address;
    }
    return client;
  }

  #isTrusted(address: string): boolean {
    return this.#trusted.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
  }
}
