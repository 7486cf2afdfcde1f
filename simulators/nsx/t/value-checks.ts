/**
 * Value rules the Policy API states in its descriptions rather than in the
 * schema (docs/upstreams.md, NSX-T): IP addresses of an `IPAddressExpression`
 * and a virtual server, and port lists of an L4 port set and a virtual server.
 */
import { isIP } from 'node:net';

/** The family (4 or 6) of an address, range (`a-b`) or subnet (`a/n`), or null when it is none. */
export function addressFamily(value: string): 4 | 6 | null {
  const slash = value.indexOf('/');
  if (slash >= 0) {
    const family = isIP(value.slice(0, slash));
    const prefix = value.slice(slash + 1);
    if (family === 0 || !/^\d{1,3}$/.test(prefix)) return null;
    return Number(prefix) <= (family === 4 ? 32 : 128) ? (family as 4 | 6) : null;
  }
  const dash = value.indexOf('-');
  if (dash >= 0) {
    const from = isIP(value.slice(0, dash));
    const to = isIP(value.slice(dash + 1));
    return from !== 0 && from === to ? (from as 4 | 6) : null;
  }
  const family = isIP(value);
  return family === 0 ? null : (family as 4 | 6);
}

/** What is wrong with one expression's addresses (one family only), or null. */
export function addressesProblem(addresses: readonly string[]): string | null {
  const families = new Set<number>();
  for (const address of addresses) {
    const family = addressFamily(address);
    if (family === null) return `Invalid IP address ${address}.`;
    families.add(family);
  }
  if (families.size > 1) {
    return 'Both IPv4 and IPv6 addresses within one expression is not allowed.';
  }
  return null;
}

/**
 * What is wrong with a port list (`"80"`, `"1000-2000"`, 0-65535), or null.
 * `limit` counts a range as two values, as the L4 port set does.
 */
export function portsProblem(ports: readonly string[], limit?: number): string | null {
  let count = 0;
  for (const port of ports) {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(port);
    if (match === null) return `Invalid port ${port}.`;
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (from > 65535 || to > 65535 || to < from) return `Invalid port ${port}.`;
    count += match[2] === undefined ? 1 : 2;
  }
  if (limit !== undefined && count > limit) {
    return `Number of values should not exceed ${limit}, ranges count as 2 values.`;
  }
  return null;
}
