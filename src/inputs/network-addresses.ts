/** What NSX takes as an address and as a port list: predicates for the network inputs. */
import { isIPv4, isIPv6 } from 'node:net';

function ipv4Number(address: string): number {
  return address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

function ipv6Number(address: string): bigint {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const expand = (list: string[]) =>
    list.flatMap((group) => {
      if (!group.includes('.')) return [group];
      const v4 = ipv4Number(group);
      return [(v4 >>> 16).toString(16), (v4 & 0xffff).toString(16)];
    });
  const left = expand(groups(head));
  const right = tail === undefined ? [] : expand(groups(tail));
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((sum, group) => sum * 65536n + BigInt(parseInt(group, 16)), 0n);
}

/** An address, a range `a-b` (same family, a <= b) or a CIDR. */
export function isAddress(value: string): boolean {
  if (isIPv4(value) || isIPv6(value)) return true;
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(value);
  if (cidr !== null) {
    const [, address = '', bits = ''] = cidr;
    return (
      (isIPv4(address) && Number(bits) <= 32) ||
      (isIPv6(address) && !address.includes('%') && Number(bits) <= 128)
    );
  }
  const range = value.split('-');
  if (range.length !== 2) return false;
  const [from = '', to = ''] = range;
  if (isIPv4(from) && isIPv4(to)) return ipv4Number(from) <= ipv4Number(to);
  if (isIPv6(from) && isIPv6(to) && !value.includes('%')) return ipv6Number(from) <= ipv6Number(to);
  return false;
}

/** `80`, `443,8000-8080`: ports 1-65535 and ranges low-high, comma-separated. */
export function isPortList(value: string): boolean {
  if (!/^\d{1,5}(-\d{1,5})?(,\d{1,5}(-\d{1,5})?)*$/.test(value)) return false;
  return value.split(',').every((item) => {
    const [low = 0, high = low] = item.split('-').map(Number);
    return low >= 1 && high <= 65535 && low <= high;
  });
}
