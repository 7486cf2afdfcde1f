/** The manager's own checks of values (written apart from the gateway's checks on purpose). */
import { isIP } from 'node:net';

function v4(address: string): number | undefined {
  if (isIP(address) !== 4) return undefined;
  return address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

/** One IP set entry: an address, a CIDR or a range of one family. */
function isEntry(entry: string): boolean {
  if (isIP(entry) !== 0) return true;
  const slash = entry.indexOf('/');
  if (slash > 0) {
    const family = isIP(entry.slice(0, slash));
    const bits = entry.slice(slash + 1);
    return family !== 0 && /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
  }
  const dash = entry.indexOf('-');
  if (dash > 0) {
    const from = entry.slice(0, dash);
    const to = entry.slice(dash + 1);
    const a = v4(from);
    const b = v4(to);
    if (a !== undefined && b !== undefined) return a <= b;
    return isIP(from) === 6 && isIP(to) === 6;
  }
  return false;
}

/** The `<value>` of an IP set: comma-separated entries, or empty. */
export function isIpSetValue(value: string): boolean {
  return value === '' || value.split(',').every((entry) => isEntry(entry.trim()));
}

export function isPortList(value: string): boolean {
  return value.split(',').every((item) => {
    const match = /^(\d+)(?:-(\d+))?$/.exec(item.trim());
    if (match === null) return false;
    const low = Number(match[1]);
    const high = match[2] === undefined ? low : Number(match[2]);
    return low > 0 && high < 65536 && low <= high;
  });
}

/** Only TCP and UDP take lists and ranges; every other port protocol one port (vShield guide, PowerNSX). */
const listProtocols = ['TCP', 'UDP'];
const portProtocols = [
  ...listProtocols,
  'FTP',
  'MS_RPC_TCP',
  'MS_RPC_UDP',
  'SUN_RPC_TCP',
  'SUN_RPC_UDP',
  'ORACLE_TNS',
  'NBNS_BROADCAST',
  'NBDG_BROADCAST',
];

/** A problem with a service's `<element>`, or undefined when it is acceptable. */
export function serviceElementProblem(
  protocol: string,
  value: string | undefined,
  sourcePort: string | undefined,
): string | undefined {
  if (portProtocols.includes(protocol)) {
    const acceptable = (ports: string) =>
      isPortList(ports) && (listProtocols.includes(protocol) || /^\d+$/.test(ports.trim()));
    if (value !== undefined && value !== '' && !acceptable(value))
      return `Invalid port value ${value} for ${protocol}.`;
    if (sourcePort !== undefined && sourcePort !== '' && !acceptable(sourcePort)) {
      return `Invalid source port value ${sourcePort} for ${protocol}.`;
    }
    return undefined;
  }
  if (protocol === 'ICMP' || protocol === 'IPV6ICMP') {
    if (sourcePort !== undefined && sourcePort !== '') return 'ICMP takes no source port.';
    return value === undefined || /^[a-z0-9-]*$/i.test(value)
      ? undefined
      : `Invalid ICMP type ${value}.`;
  }
  if (protocol === 'IGMP') {
    return (value ?? '') === '' && (sourcePort ?? '') === '' ? undefined : 'IGMP takes no ports.';
  }
  return `Unknown application protocol ${protocol}.`;
}

export function isBooleanText(value: string): boolean {
  return value === 'true' || value === 'false';
}
