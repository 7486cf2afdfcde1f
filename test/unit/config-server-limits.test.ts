import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('loadConfig: the HTTP server’s limits', () => {
  it('defaults to limits that close slow clients in seconds and cap connections and subscriptions', () => {
    expect(loadConfig({}).server).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 300_000,
      keepAliveTimeoutMs: 5000,
      maxConnections: 1000,
      maxSubscriptionsPerClient: 20,
    });
  });

  it('reads each limit from its variable', () => {
    const config = loadConfig({
      HTTP_HEADERS_TIMEOUT_MS: '2000',
      HTTP_REQUEST_TIMEOUT_MS: '60000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
      HTTP_MAX_CONNECTIONS: '50',
      MAX_SUBSCRIPTIONS_PER_CLIENT: '3',
    });
    expect(config.server).toEqual({
      headersTimeoutMs: 2000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 50,
      maxSubscriptionsPerClient: 3,
    });
  });

  it.each([
    ['HTTP_HEADERS_TIMEOUT_MS', '0'],
    ['HTTP_HEADERS_TIMEOUT_MS', 'soon'],
    ['HTTP_REQUEST_TIMEOUT_MS', '-1'],
    ['HTTP_KEEP_ALIVE_TIMEOUT_MS', '1.5'],
    ['HTTP_MAX_CONNECTIONS', '0'],
    ['MAX_SUBSCRIPTIONS_PER_CLIENT', '0'],
    ['MAX_SUBSCRIPTIONS_PER_CLIENT', 'many'],
  ])('stops on a bad %s (%s) and names the variable', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(`^${variable} `));
  });

  it('refuses a request timeout shorter than the headers timeout', () => {
    expect(() =>
      loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '4000' }),
    ).toThrow(/^HTTP_REQUEST_TIMEOUT_MS .*HTTP_HEADERS_TIMEOUT_MS/);
  });
});
