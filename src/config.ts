/**
 * The gateway's configuration: the only module that reads the environment.
 * Every variable is validated here, at start-up; a bad value stops start-up
 * with a ConfigError that names the variable.
 */

export type Env = Readonly<Record<string, string | undefined>>;

export interface UpstreamConfig {
  /** API root; undefined: served by the built-in simulator. */
  url: URL | undefined;
  username: string | undefined;
  password: string | undefined;
}

export interface VraConfig extends UpstreamConfig {
  tenant: string | undefined;
  iaasProviderName: string;
}

export interface NsxConfig extends UpstreamConfig {
  edgeApiVersion: string;
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';

export interface Config {
  port: number;
  host: string;
  upstreamTimeoutMs: number;
  vro: UpstreamConfig;
  vra: VraConfig;
  nsx: NsxConfig;
  /** Bearer tokens a client must present; empty: no client authentication. */
  gatewayTokens: readonly string[];
  logLevel: LogLevel;
}

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, problem: string) {
    super(`${variable} ${problem}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

/** Reads and validates the whole configuration; throws ConfigError on the first bad value. */
export function loadConfig(env: Env): Config {
  const read = reader(env);
  return {
    port: read.integer('PORT', 4000, 0, 65535),
    host: read.text('HOST') ?? '127.0.0.1',
    upstreamTimeoutMs: read.integer('UPSTREAM_TIMEOUT_MS', 30000, 1, 600000),
    vro: read.upstream('VRO'),
    vra: {
      ...read.upstream('VRA'),
      tenant: read.text('VRA_TENANT'),
      iaasProviderName: read.text('VRA_IAAS_PROVIDER_NAME') ?? 'iaas-service',
    },
    nsx: {
      ...read.upstream('NSX'),
      edgeApiVersion:
        read.matching('NSX_EDGE_API_VERSION', /^\d+\.\d+$/, 'a version such as 3.0 or 4.0') ??
        '3.0',
    },
    gatewayTokens: read.list('GATEWAY_TOKENS'),
    logLevel:
      read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const) ??
      'info',
  };
}

function reader(env: Env) {
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${raw}")`);
    }
    return Number(raw);
  };
  const matching = (name: string, pattern: RegExp, what: string): string | undefined => {
    const raw = text(name);
    if (raw !== undefined && !pattern.test(raw)) {
      throw new ConfigError(name, `must be ${what} (got "${raw}")`);
    }
    return raw;
  };
  const oneOf = <T extends string>(name: string, values: readonly T[]): T | undefined => {
    const raw = text(name);
    if (raw === undefined) return undefined;
    const found = values.find((v) => v === raw.toLowerCase());
    if (found === undefined)
      throw new ConfigError(name, `must be one of ${values.join(', ')} (got "${raw}")`);
    return found;
  };
  const url = (name: string): URL | undefined => {
    const raw = text(name);
    if (raw === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(name, 'must be an absolute http(s) URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ConfigError(name, 'must be an http(s) URL');
    }
    if (parsed.username !== '' || parsed.password !== '') {
      throw new ConfigError(
        name,
        'must not carry credentials: use the _USERNAME and _PASSWORD variables',
      );
    }
    if (parsed.search !== '' || parsed.hash !== '') {
      throw new ConfigError(name, 'must not have a query or fragment');
    }
    parsed.pathname = parsed.pathname.replace(/\/+$/, '');
    return parsed;
  };
  const list = (name: string): string[] =>
    (text(name) ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
  const upstream = (prefix: string): UpstreamConfig => ({
    url: url(`${prefix}_URL`),
    username: text(`${prefix}_USERNAME`),
    password: env[`${prefix}_PASSWORD`] === '' ? undefined : env[`${prefix}_PASSWORD`],
  });
  return { text, integer, matching, oneOf, url, list, upstream };
}
