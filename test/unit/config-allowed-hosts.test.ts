import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { hostAllowed } from '../../src/plugins/allowed-hosts.ts';

describe('ALLOWED_HOSTS', () => {
  it('names no host by default', () => {
    expect(loadConfig({}).allowedHosts).toEqual([]);
  });

  it('reads host names with an optional port, in lower case, without a trailing dot', () => {
    const config = loadConfig({
      ALLOWED_HOSTS: ' Gateway.Example.com , dev.example.com:8443,,gateway-2.internal. ',
    });
    expect(config.allowedHosts).toEqual([
      { name: 'gateway.example.com', port: undefined },
      { name: 'dev.example.com', port: 8443 },
      { name: 'gateway-2.internal', port: undefined },
    ]);
  });

  it.each([
    ['*'],
    ['*.example.com'],
    ['https://gateway.example.com'],
    ['gateway.example.com/graphql'],
    ['gateway.example.com:0'],
    ['gateway.example.com:65536'],
    ['gateway.example.com:'],
    ['[::1]:4000'],
    ['user@gateway.example.com'],
    ['-gateway.example.com'],
    ['gateway..example.com'],
  ])('stops start-up on %s, naming ALLOWED_HOSTS', (value) => {
    expect(() => loadConfig({ ALLOWED_HOSTS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ALLOWED_HOSTS: `ok.example.com,${value}` })).toThrow(
      /^ALLOWED_HOSTS /,
    );
  });
});

describe('which Host headers the gateway answers to', () => {
  const allowed = loadConfig({
    ALLOWED_HOSTS: 'gateway.example.com,dev.example.com:8443',
  }).allowedHosts;

  it.each([
    '127.0.0.1',
    '127.0.0.1:4000',
    '10.1.2.3:4000',
    '[::1]',
    '[::1]:4000',
    '[fe80::1]:80',
    'localhost',
    'LOCALHOST:4000',
    'localhost.:4000',
    'gateway.example.com',
    'gateway.example.com:4000',
    'gateway.example.com.',
    'dev.example.com:8443',
  ])('answers %s', (host) => {
    expect(hostAllowed(host, allowed)).toBe(true);
  });

  it.each([
    'evil.test',
    'evil.test:4000',
    'dev.example.com',
    'dev.example.com:443',
    'x.gateway.example.com',
    'localhost.evil.test',
    'evil.localhost',
    '127.0.0.1.evil.test',
    '127.1',
    '2130706433',
    '[::1',
    '[evil.test]',
    '[::1]x',
    'evil.test:4000:4000',
    '',
  ])('refuses %s', (host) => {
    expect(hostAllowed(host, allowed)).toBe(false);
  });

  it('answers a request without Host (HTTP/1.0, no browser)', () => {
    expect(hostAllowed(undefined, [])).toBe(true);
  });
});
