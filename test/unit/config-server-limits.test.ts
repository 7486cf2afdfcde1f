import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('loadConfig: the HTTP server’s limits', () => {
  it('defaults to limits that close slow clients in seconds and cap connections and subscriptions', () => {
    expect(loadConfig({}).server).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 300_000,
      keepAliveTimeoutMs: 5000,
      maxConnections: 1000,
      maxConnectionsPerAddress: 128,
      minBodyBytesPerSecond: 1024,
      maxSubscriptionsPerClient: 20,
    });
  });

  it('reads each limit from its variable', () => {
    const config = loadConfig({
      HTTP_HEADERS_TIMEOUT_MS: '2000',
      HTTP_REQUEST_TIMEOUT_MS: '60000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
      HTTP_MAX_CONNECTIONS: '50',
      MAX_CONNECTIONS_PER_ADDRESS: '10',
      MIN_BODY_BYTES_PER_SECOND: '100',
      MAX_SUBSCRIPTIONS_PER_CLIENT: '3',
    });
    expect(config.server).toEqual({
      headersTimeoutMs: 2000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 50,
      maxConnectionsPerAddress: 10,
      minBodyBytesPerSecond: 100,
      maxSubscriptionsPerClient: 3,
    });
  });

  it.each([
    ['HTTP_HEADERS_TIMEOUT_MS', '0'],
    ['HTTP_HEADERS_TIMEOUT_MS', 'soon'],
    ['HTTP_REQUEST_TIMEOUT_MS', '-1'],
    ['HTTP_KEEP_ALIVE_TIMEOUT_MS', '1.5'],
    ['HTTP_MAX_CONNECTIONS', '0'],
    ['MAX_CONNECTIONS_PER_ADDRESS', '0'],
    ['MIN_BODY_BYTES_PER_SECOND', '0'],
    ['MIN_BODY_BYTES_PER_SECOND', 'slow'],
    ['MAX_SUBSCRIPTIONS_PER_CLIENT', '0'],
    ['MAX_SUBSCRIPTIONS_PER_CLIENT', 'many'],
  ])('stops on a bad %s (%s) and names the variable', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(`^${variable} `));
  });

  it('caps connections per address at HTTP_MAX_CONNECTIONS by default, and refuses a cap above it', () => {
    expect(loadConfig({ HTTP_MAX_CONNECTIONS: '40' }).server.maxConnectionsPerAddress).toBe(40);
    expect(() =>
      loadConfig({ HTTP_MAX_CONNECTIONS: '40', MAX_CONNECTIONS_PER_ADDRESS: '41' }),
    ).toThrow(/^MAX_CONNECTIONS_PER_ADDRESS .*HTTP_MAX_CONNECTIONS/);
  });

  it('refuses a request timeout shorter than the headers timeout', () => {
    expect(() =>
      loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '4000' }),
    ).toThrow(/^HTTP_REQUEST_TIMEOUT_MS .*HTTP_HEADERS_TIMEOUT_MS/);
  });
});
