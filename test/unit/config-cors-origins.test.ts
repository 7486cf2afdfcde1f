import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('CORS_ORIGINS', () => {
  it('allows no other origin by default', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
  });

  it('reads a comma-separated list as browsers spell an Origin header', () => {
    const config = loadConfig({
      CORS_ORIGINS: ' https://App.Example:443 , http://localhost:5173/,,http://[::1]:8080 ',
    });
    expect(config.corsOrigins).toEqual([
      'https://app.example',
      'http://localhost:5173',
      'http://[::1]:8080',
    ]);
  });

  it.each([
    ['*'],
    ['null'],
    ['app.example'],
    ['ftp://app.example'],
    ['https://app.example/graphiql'],
    ['https://app.example?x=1'],
    ['https://app.example#top'],
    ['https://user:pw@app.example'],
  ])('stops start-up on %s, naming CORS_ORIGINS', (value) => {
    expect(() => loadConfig({ CORS_ORIGINS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ CORS_ORIGINS: `https://ok.example,${value}` })).toThrow(
      /^CORS_ORIGINS /,
    );
  });
});
