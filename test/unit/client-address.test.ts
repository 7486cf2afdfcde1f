import { describe, expect, it } from 'vitest';
import { ClientAddresses, type ProxyRange } from '../../src/client-address.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

const trusting = (value: string): ClientAddresses =>
  new ClientAddresses(loadConfig({ TRUSTED_PROXIES: value }).trustedProxies);

describe('TRUSTED_PROXIES', () => {
  it('trusts no proxy by default', () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
  });

  it('reads IPv4 and IPv6 addresses and CIDR ranges, comma-separated', () => {
    const ranges: ProxyRange[] = [
      { address: '10.0.0.5', prefix: 32, family: 'ipv4' },
      { address: '10.1.0.0', prefix: 16, family: 'ipv4' },
      { address: 'fd00::', prefix: 8, family: 'ipv6' },
      { address: '::1', prefix: 128, family: 'ipv6' },
      { address: '0.0.0.0', prefix: 0, family: 'ipv4' },
    ];
    expect(
      loadConfig({ TRUSTED_PROXIES: ' 10.0.0.5, 10.1.0.0/16,,fd00::/8 ,::1,0.0.0.0/0' })
        .trustedProxies,
    ).toEqual(ranges);
  });

  it.each([
    ['proxy.internal'],
    ['10.0.0.0/33'],
    ['fd00::/129'],
    ['10.0.0.0/'],
    ['10.0.0/8'],
    ['10.0.0.1/8/8'],
    ['[::1]'],
    ['10.0.0.1:8080'],
    ['*'],
  ])('stops start-up on %s, naming TRUSTED_PROXIES', (value) => {
    expect(() => loadConfig({ TRUSTED_PROXIES: value })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUSTED_PROXIES: `10.0.0.1,${value}` })).toThrow(/^TRUSTED_PROXIES /);
  });
});

describe('the client address', () => {
  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    const none = new ClientAddresses([]);
    expect(none.of('192.0.2.1', '203.0.113.9')).toBe('192.0.2.1');
    expect(none.of('::ffff:192.0.2.1', null)).toBe('192.0.2.1');
    expect(none.of('2001:db8::1', '203.0.113.9')).toBe('2001:db8::1');
    expect(none.of(undefined, '203.0.113.9')).toBeNull();
  });

  it('is the socket peer when the peer is not a trusted proxy', () => {
    const proxies = trusting('10.0.0.0/8');
    expect(proxies.of('192.0.2.1', '10.0.0.9, 203.0.113.9')).toBe('192.0.2.1');
  });

  it('is the rightmost address that is not a trusted proxy, walking X-Forwarded-For from the right', () => {
    const proxies = trusting('10.0.0.0/8,fd00::/8');
    // the client forged the first entry; the edge proxy 10.0.0.2 appended the address it saw
    expect(proxies.of('10.0.0.1', '198.51.100.77, 203.0.113.9, 10.0.0.2')).toBe('203.0.113.9');
    expect(proxies.of('::ffff:10.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    expect(proxies.of('fd00::1', '2001:db8::5, fd00::2')).toBe('2001:db8::5');
    expect(proxies.of('10.0.0.1', '[2001:db8::6]:4711')).toBe('2001:db8::6');
    expect(proxies.of('10.0.0.1', '203.0.113.10:4711')).toBe('203.0.113.10');
  });

  it('is the leftmost hop when every hop is a trusted proxy, and the peer when there is no header', () => {
    const proxies = trusting('10.0.0.0/8');
    expect(proxies.of('10.0.0.1', '10.0.0.3, 10.0.0.2')).toBe('10.0.0.3');
    expect(proxies.of('10.0.0.1', null)).toBe('10.0.0.1');
    expect(proxies.of('10.0.0.1', '')).toBe('10.0.0.1');
  });

  it('stops at an entry that is not an address: the last hop known for sure', () => {
    const proxies = trusting('10.0.0.0/8');
    expect(proxies.of('10.0.0.1', '203.0.113.9, unknown')).toBe('10.0.0.1');
    expect(proxies.of('10.0.0.1', '203.0.113.9, , 10.0.0.2')).toBe('10.0.0.2');
    expect(proxies.of('10.0.0.1', 'not-an-address, 203.0.113.9')).toBe('203.0.113.9');
  });
});
