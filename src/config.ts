/**
 * The gateway's configuration: the only module that reads the environment.
 * Every variable is validated here, at start-up; a bad value stops start-up
 * with a ConfigError that names the variable.
 */

import { readFileSync } from 'node:fs';
import { allScopes, isScope, type Scope } from './auth/scopes.ts';
import { proxyRange, type ProxyRange } from './client-address.ts';
import type { VroAuthMode } from './credentials.ts';
import { defaultResilience } from './http/resilience-defaults.ts';
import {
  loadPersistedOperations,
  PersistedOperationsFileError,
} from './plugins/persisted-operations.ts';

export type Env = Readonly<Record<string, string | undefined>>;

export interface UpstreamConfig {
  /** API root; undefined: served by the built-in simulator. */
  url: URL | undefined;
  username: string | undefined;
  password: string | undefined;
  /** PEM certificates trusted for this upstream (from `<X>_CA_FILE`). */
  ca: string | undefined;
  /** Skip certificate checks (lab appliances only; logged as a warning at start). */
  tlsInsecure: boolean;
}

export interface VroConfig extends UpstreamConfig {
  authMode: VroAuthMode;
}

/** VRA_API_GENERATION: vRA 7 (catalog-service) or 8 (Aria Automation); undefined: asked of the appliance. */
export type VraGeneration = '7' | '8';

/** NSX_API: NSX-v (and vCNS) or NSX-T (Policy API); undefined: asked of the manager. */
export type NsxApi = 'v' | 't';

export interface VraConfig extends UpstreamConfig {
  /** VRA_API_GENERATION; undefined: asked of the appliance on first use. */
  generation: VraGeneration | undefined;
  tenant: string | undefined;
  iaasProviderName: string;
}

export interface NsxConfig extends UpstreamConfig {
  /** NSX_API; undefined: asked of the manager on first use. */
  api: NsxApi | undefined;
  /** The version segment of edge paths; undefined: asked of the manager on first use. */
  edgeApiVersion: string | undefined;
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';

export interface Limits {
  maxDepth: number;
  maxAliases: number;
  maxTokens: number;
  /** Field selections an operation or fragment may expand to once its fragment spreads are followed. */
  maxExpandedSelections: number;
  maxBatchOperations: number;
  /** Estimated upstream calls one operation (or one batched request) may make. */
  maxUpstreamCalls: number;
  maxRequestBytes: number;
  maxUploadBytes: number;
}

export interface Resilience {
  retries: number;
  /** Calls in flight per upstream: the ceiling of the adaptive limit, or the fixed cap. */
  maxConcurrent: number;
  /** The floor of the adaptive limit; undefined: a fixed cap of `maxConcurrent`. */
  minConcurrent: number | undefined;
  maxQueue: number;
  circuitFailureThreshold: number;
  circuitResetMs: number;
  /** Pages one paged read of an upstream list may take (UPSTREAM_MAX_PAGES). */
  maxPages: number;
  /** Bytes of those pages together (UPSTREAM_MAX_LIST_BYTES). */
  maxListBytes: number;
}

export interface Config {
  port: number;
  host: string;
  upstreamTimeoutMs: number;
  vro: VroConfig;
  vra: VraConfig;
  nsx: NsxConfig;
  /** Serve without client authentication on a non-loopback address although service credentials are set. */
  allowUnauthenticated: boolean;
  /** CORS_ORIGINS: other origins (front-ends) whose pages may use the gateway, credentials included. */
  corsOrigins: readonly string[];
  /** ALLOWED_HOSTS: host names the gateway answers to besides IP literals and `localhost`. */
  allowedHosts: readonly AllowedHost[];
  /** TRUSTED_PROXIES: reverse proxies whose X-Forwarded-For names the client; none: the socket's peer is the client. */
  trustedProxies: readonly ProxyRange[];
  logLevel: LogLevel;
  limits: Limits;
  resilience: Resilience;
  readyProbeIntervalMs: number;
  shutdownGraceMs: number;
  providerCacheTtlMs: number;
  /** Run queries and mutations compiled by graphql-jit. */
  graphqlJit: boolean;
  /** How long a vRO workflow's detail and form are kept per credential and version; 0 disables. */
  workflowDetailCacheTtlMs: number;
  /** Persisted-operations (allow-list) file: when set, only its operations run. */
  persistedOperationsFile: string | undefined;
  /** OTLP/HTTP traces endpoint; unset: no tracing. */
  otlpEndpoint: URL | undefined;
  /**
   * SIMULATOR_LATENCY_MS: every request to a built-in simulator is answered
   * this much later (default 0), to try timeouts, drains and loading states
   * by hand. Real upstreams are not affected.
   */
  simulatorLatencyMs: number;
  /** How the built-in simulators of `npm start` behave (steps of runs and requests, random faults). */
  simulators: SimulatorSettings;
  /** The HTTP server's own limits: slow clients, connection floods, subscriptions per client. */
  server: ServerLimits;
  /**
   * Serve the reference self-service portal at `/portal` (default: on when
   * every upstream is a built-in simulator, off otherwise).
   */
  portal: boolean;
  /** REDIS_URL: where replicas share caches and pollers; undefined: this process keeps its own. */
  redis: RedisConfig | undefined;
  auth: AuthConfig;
}

/** One ALLOWED_HOSTS entry: a host name, lower-case, and the port it must come with (any when undefined). */
export interface AllowedHost {
  name: string;
  port: number | undefined;
}

/** A gateway token and what its holder may do. */
export interface NamedToken {
  /** Shown in audit events and `viewer`; a GATEWAY_TOKENS entry is named by its position. */
  name: string;
  token: string;
  scopes: readonly Scope[];
}

/** Who may call, and what is written down about it (added 2026-11-27). */
export interface AuthConfig {
  /** GATEWAY_TOKENS (every scope) and GATEWAY_TOKENS_FILE (the scopes listed). */
  tokens: readonly NamedToken[];
  /** GATEWAY_TOKENS_FILE was given: callers need a credential even while it lists no token. */
  tokensFile: string | undefined;
  /** JWT_JWKS_URL, JWT_ISSUER, JWT_AUDIENCE; undefined: no JWT is accepted. */
  jwt: { jwksUrl: URL; issuer: string; audience: string } | undefined;
  /** SESSION_SCOPES: what a person signed in with `signIn` may do. */
  sessionScopes: readonly Scope[];
  /** SESSION_SECRET: the key of sessions kept in Redis. */
  sessionSecret: string | undefined;
  /** Whether the session cookie carries `Secure`. */
  sessionCookieSecure: boolean;
  /** AUDIT_LOG: `stdout` or a file appended to. */
  audit: 'stdout' | { file: string };
}

/** The Redis that the gateway's replicas share (REDIS_URL, REDIS_KEY_PREFIX). */
export interface RedisConfig {
  /** `redis://` or `rediss://` (TLS), with an optional user, password and database number. */
  url: URL;
  /** Put before every key and channel, so that one Redis can serve other applications too. */
  keyPrefix: string;
}

/** Limits of the gateway's own HTTP server (see serve.ts) and of the subscriptions one client may hold. */
export interface ServerLimits {
  /** The whole header block of a request must arrive within this. */
  headersTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this; an answer being streamed is not cut. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; beyond it a new connection is closed at once. */
  maxConnections: number;
  /** Open connections at most from one socket peer address; beyond it a new one is closed at once. */
  maxConnectionsPerAddress: number;
  /** A request body must arrive at least this fast on average (after a first second), else 408. */
  minBodyBytesPerSecond: number;
  /** Open subscriptions per client (its gateway token, else its address). */
  maxSubscriptionsPerClient: number;
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
  const { retry, circuit, concurrency, paging } = defaultResilience;
  const config: Config = {
    port: read.integer('PORT', 4000, 0, 65535),
    host: read.text('HOST') ?? '127.0.0.1',
    upstreamTimeoutMs: read.integer('UPSTREAM_TIMEOUT_MS', defaultResilience.timeoutMs, 1, 600000),
    vro: {
      ...read.upstream('VRO'),
      authMode: read.oneOf('VRO_AUTH_MODE', ['basic', 'vra-token'] as const) ?? 'basic',
    },
    vra: {
      ...read.upstream('VRA'),
      generation: read.oneOf('VRA_API_GENERATION', ['7', '8'] as const),
      tenant: read.text('VRA_TENANT'),
      iaasProviderName: read.text('VRA_IAAS_PROVIDER_NAME') ?? 'iaas-service',
    },
    nsx: {
      ...read.upstream('NSX'),
      api: read.oneOf('NSX_API', ['v', 't'] as const),
      edgeApiVersion: read.matching(
        'NSX_EDGE_API_VERSION',
        /^\d+\.\d+$/,
        'a version such as 3.0 or 4.0',
      ),
    },
    allowUnauthenticated: read.flag('GATEWAY_ALLOW_UNAUTHENTICATED'),
    corsOrigins: read.list('CORS_ORIGINS').map(origin),
    allowedHosts: read.list('ALLOWED_HOSTS').map(allowedHost),
    trustedProxies: read.list('TRUSTED_PROXIES').map(trustedProxy),
    logLevel:
      read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const) ??
      'info',
    limits: {
      maxDepth: read.integer('MAX_QUERY_DEPTH', 12, 1, 1000),
      maxAliases: read.integer('MAX_ALIASES', 30, 0, 10000),
      maxTokens: read.integer('MAX_TOKENS', 3000, 10, 1_000_000),
      maxExpandedSelections: read.integer('MAX_EXPANDED_SELECTIONS', 2000, 1, 1_000_000),
      maxBatchOperations: read.integer('MAX_BATCH_OPERATIONS', 10, 0, 1000),
      maxUpstreamCalls: read.integer('MAX_UPSTREAM_CALLS_PER_OPERATION', 100, 1, 1_000_000),
      maxRequestBytes: read.integer('MAX_REQUEST_BYTES', 1_048_576, 1024, 1_073_741_824),
      maxUploadBytes: read.integer('MAX_UPLOAD_BYTES', 104_857_600, 1024, 10_737_418_240),
    },
    resilience: {
      retries: read.integer('UPSTREAM_RETRIES', retry.retries, 0, 10),
      ...readConcurrency(read),
      maxQueue: read.integer('UPSTREAM_MAX_QUEUE', concurrency.maxQueue, 0, 1_000_000),
      circuitFailureThreshold: read.integer(
        'CIRCUIT_FAILURE_THRESHOLD',
        circuit.failureThreshold,
        1,
        10000,
      ),
      circuitResetMs: read.integer('CIRCUIT_RESET_MS', circuit.resetMs, 100, 3_600_000),
      maxPages: read.integer('UPSTREAM_MAX_PAGES', paging.maxPages, 1, 100_000),
      maxListBytes: read.integer(
        'UPSTREAM_MAX_LIST_BYTES',
        paging.maxBytes,
        1024,
        4 * 1024 * 1024 * 1024,
      ),
    },
    readyProbeIntervalMs: read.integer('READY_PROBE_INTERVAL_MS', 10_000, 100, 30_000),
    shutdownGraceMs: read.integer('SHUTDOWN_GRACE_MS', 20_000, 0, 600_000),
    providerCacheTtlMs: read.integer('PROVIDER_CACHE_TTL_MS', 60_000, 0, 86_400_000),
    graphqlJit: read.text('GRAPHQL_JIT') === undefined ? true : read.flag('GRAPHQL_JIT'),
    workflowDetailCacheTtlMs: read.integer('WORKFLOW_DETAIL_CACHE_TTL_MS', 300_000, 0, 86_400_000),
    persistedOperationsFile: checkedAllowList(read.readableFile('PERSISTED_OPERATIONS_FILE')),
    otlpEndpoint: read.url('OTEL_EXPORTER_OTLP_ENDPOINT'),
    simulatorLatencyMs: read.integer('SIMULATOR_LATENCY_MS', 0, 0, 600_000),
    simulators: readSimulatorSettings(read),
    server: readServerLimits(read),
    portal:
      read.text('PORTAL') === undefined
        ? ['VRO_URL', 'VRA_URL', 'NSX_URL'].every((name) => read.text(name) === undefined)
        : read.flag('PORTAL'),
    redis: readRedis(read),
    auth: readAuth(read),
  };
  refuseOpenExposure(config);
  return config;
}

function readAuth(read: ReturnType<typeof reader>): AuthConfig {
  const host = read.text('HOST') ?? '127.0.0.1';
  const sessionSecret = read.text('SESSION_SECRET');
  if (sessionSecret !== undefined && sessionSecret.length < 32) {
    throw new ConfigError(
      'SESSION_SECRET',
      'must be at least 32 characters (e.g. `openssl rand -base64 48`)',
    );
  }
  if (read.text('REDIS_URL') !== undefined && sessionSecret === undefined) {
    throw new ConfigError(
      'SESSION_SECRET',
      'is required when REDIS_URL is set: it encrypts the sessions kept in Redis (at least 32 characters)',
    );
  }
  const auditLog = read.text('AUDIT_LOG') ?? 'stdout';
  const tokensFile = read.readableFile('GATEWAY_TOKENS_FILE');
  return {
    tokens: [
      ...read.list('GATEWAY_TOKENS').map((token, index) => ({
        name: `GATEWAY_TOKENS[${index + 1}]`,
        token,
        scopes: allScopes,
      })),
      ...readTokenFile(tokensFile),
    ],
    tokensFile,
    jwt: readJwt(read),
    sessionScopes: scopeList(
      'SESSION_SCOPES',
      read.text('SESSION_SCOPES') ?? 'read workflow:run catalog:request',
    ),
    sessionSecret,
    sessionCookieSecure:
      read.text('SESSION_COOKIE_SECURE') === undefined
        ? !loopback.test(host)
        : read.flag('SESSION_COOKIE_SECURE'),
    audit: auditLog.toLowerCase() === 'stdout' ? 'stdout' : { file: auditLog },
  };
}

function scopeList(variable: string, text: string): Scope[] {
  const names = text.split(/[\s,]+/).filter((name) => name !== '');
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      variable,
      `names unknown scopes (${unknown.join(', ')}); the scopes are ${allScopes.join(', ')}`,
    );
  }
  return [...new Set(names as Scope[])].sort();
}

/** GATEWAY_TOKENS_FILE: `[{ "name", "token", "scopes": [...] }]`, checked whole at start-up. */
function readTokenFile(file: string | undefined): NamedToken[] {
  if (file === undefined) return [];
  const bad = (problem: string) => new ConfigError('GATEWAY_TOKENS_FILE', `${problem} ("${file}")`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw bad('must hold JSON: [{ "name": "...", "token": "...", "scopes": ["read"] }]');
  }
  if (!Array.isArray(parsed)) throw bad('must hold a JSON array of { name, token, scopes }');
  const tokens = parsed.map((entry: unknown, index): NamedToken => {
    const at = `entry ${index + 1}`;
    if (typeof entry !== 'object' || entry === null) throw bad(`${at} is not an object`);
    const { name, token, scopes } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || name.trim() === '') throw bad(`${at} has no "name"`);
    if (typeof token !== 'string' || !/^[\x21-\x7e]{16,4096}$/.test(token)) {
      throw bad(`${at} ("${name}") needs a "token" of 16 or more printable characters`);
    }
    if (!Array.isArray(scopes) || !scopes.every((s): s is string => typeof s === 'string')) {
      throw bad(`${at} ("${name}") needs "scopes", an array of scope names`);
    }
    return { name: name.trim(), token, scopes: scopeList('GATEWAY_TOKENS_FILE', scopes.join(' ')) };
  });
  const names = new Set(tokens.map((t) => t.name));
  const values = new Set(tokens.map((t) => t.token));
  if (names.size !== tokens.length) throw bad('names a token twice');
  if (values.size !== tokens.length) throw bad('lists the same token twice');
  return tokens;
}

function readJwt(read: ReturnType<typeof reader>): AuthConfig['jwt'] {
  const jwksUrl = read.url('JWT_JWKS_URL');
  const issuer = read.text('JWT_ISSUER');
  const audience = read.text('JWT_AUDIENCE');
  if (jwksUrl === undefined) {
    if (issuer !== undefined || audience !== undefined) {
      throw new ConfigError('JWT_JWKS_URL', 'is required with JWT_ISSUER and JWT_AUDIENCE');
    }
    return undefined;
  }
  if (issuer === undefined) throw new ConfigError('JWT_ISSUER', 'is required with JWT_JWKS_URL');
  if (audience === undefined)
    throw new ConfigError('JWT_AUDIENCE', 'is required with JWT_JWKS_URL');
  return { jwksUrl, issuer, audience };
}

function readConcurrency(
  read: ReturnType<typeof reader>,
): Pick<Resilience, 'maxConcurrent' | 'minConcurrent'> {
  const maxConcurrent = read.integer(
    'UPSTREAM_MAX_CONCURRENCY',
    defaultResilience.concurrency.maxConcurrent,
    1,
    10000,
  );
  const adaptive =
    read.text('UPSTREAM_ADAPTIVE_CONCURRENCY') === undefined ||
    read.flag('UPSTREAM_ADAPTIVE_CONCURRENCY');
  const minConcurrent = read.integer(
    'UPSTREAM_MIN_CONCURRENCY',
    Math.min(defaultResilience.concurrency.minConcurrent, maxConcurrent),
    1,
    10000,
  );
  if (minConcurrent > maxConcurrent) {
    throw new ConfigError(
      'UPSTREAM_MIN_CONCURRENCY',
      `must not be above UPSTREAM_MAX_CONCURRENCY (${minConcurrent} > ${maxConcurrent})`,
    );
  }
  return { maxConcurrent, minConcurrent: adaptive ? minConcurrent : undefined };
}

function readServerLimits(read: ReturnType<typeof reader>): ServerLimits {
  const headersTimeoutMs = read.integer('HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestTimeoutMs = read.integer('HTTP_REQUEST_TIMEOUT_MS', 300_000, 100, 3_600_000);
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new ConfigError(
      'HTTP_REQUEST_TIMEOUT_MS',
      `must not be shorter than HTTP_HEADERS_TIMEOUT_MS (${requestTimeoutMs} < ${headersTimeoutMs})`,
    );
  }
  const maxConnections = read.integer('HTTP_MAX_CONNECTIONS', 1000, 1, 1_000_000);
  const maxConnectionsPerAddress = read.integer(
    'MAX_CONNECTIONS_PER_ADDRESS',
    Math.min(128, maxConnections),
    1,
    1_000_000,
  );
  if (maxConnectionsPerAddress > maxConnections) {
    throw new ConfigError(
      'MAX_CONNECTIONS_PER_ADDRESS',
      `must not be above HTTP_MAX_CONNECTIONS (${maxConnectionsPerAddress} > ${maxConnections})`,
    );
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: read.integer('HTTP_KEEP_ALIVE_TIMEOUT_MS', 5000, 100, 600_000),
    maxConnections,
    maxConnectionsPerAddress,
    minBodyBytesPerSecond: read.integer('MIN_BODY_BYTES_PER_SECOND', 1024, 1, 1_073_741_824),
    maxSubscriptionsPerClient: read.integer('MAX_SUBSCRIPTIONS_PER_CLIENT', 20, 1, 100_000),
  };
}

function readRedis(read: ReturnType<typeof reader>): RedisConfig | undefined {
  const raw = read.text('REDIS_URL');
  const keyPrefix =
    read.matching('REDIS_KEY_PREFIX', /^[\x21-\x7e]{1,64}$/, '1 to 64 printable characters') ??
    'vmw-gateway:';
  if (raw === undefined) return undefined;
  return { url: redisUrl(raw), keyPrefix };
}

/** REDIS_URL, checked without ever repeating it: it may carry a password. */
function redisUrl(raw: string): URL {
  const example = 'e.g. redis://redis.example:6379 or rediss://:password@redis.example:6380/1';
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError('REDIS_URL', `must be a redis:// or rediss:// URL (${example})`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new ConfigError('REDIS_URL', `must be a redis:// or rediss:// URL (${example})`);
  }
  if (parsed.hostname === '') {
    throw new ConfigError('REDIS_URL', `must name a host (${example})`);
  }
  if (!/^\/?(\d{1,5})?$/.test(parsed.pathname) || parsed.search !== '' || parsed.hash !== '') {
    throw new ConfigError(
      'REDIS_URL',
      `may end with a database number only, no other path, query or fragment (${example})`,
    );
  }
  return parsed;
}

/** The allow-list file, once it is known to load (a bad one stops start-up here, not later). */
function checkedAllowList(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    loadPersistedOperations(file);
  } catch (error) {
    if (error instanceof PersistedOperationsFileError) {
      throw new ConfigError('PERSISTED_OPERATIONS_FILE', error.message);
    }
    throw error;
  }
  return file;
}

/** One CORS_ORIGINS entry as a browser's Origin header spells it (`https://app.example:8443`). */
/** The built-in simulators' knobs, as `simulators/cli.ts` has them for a process of their own. */
export interface SimulatorSettings {
  /** SIMULATOR_VRO_STEP_MS: how long each state of a simulated workflow run lasts. */
  vroStepMs: number;
  /** SIMULATOR_VRA_STEP_MS: how long each state of a simulated catalog request lasts. */
  vraStepMs: number;
  /** SIMULATOR_FAULT_PROBABILITY: the chance that a simulated answer is a fault (0 to 1). */
  faultProbability: number;
  /** SIMULATOR_FAULT_KINDS: the faults picked from, evenly: HTTP statuses, reset, reset-mid-body, malformed, truncated. */
  faultKinds: readonly string[];
}

/** A simulator fault by its name: an HTTP status, or a broken answer (simulators/random-faults.ts). */
export const faultKindName = /^(?:[1-5]\d\d|reset|reset-mid-body|malformed|truncated)$/;

function readSimulatorSettings(read: ReturnType<typeof reader>): SimulatorSettings {
  const rawProbability = read.text('SIMULATOR_FAULT_PROBABILITY');
  const faultProbability = rawProbability === undefined ? 0 : Number(rawProbability);
  if (!Number.isFinite(faultProbability) || faultProbability < 0 || faultProbability > 1) {
    throw new ConfigError('SIMULATOR_FAULT_PROBABILITY', 'must be a number from 0 to 1, e.g. 0.05');
  }
  const faultKinds = read.list('SIMULATOR_FAULT_KINDS');
  const unknown = faultKinds.find((kind) => !faultKindName.test(kind));
  if (unknown !== undefined) {
    throw new ConfigError(
      'SIMULATOR_FAULT_KINDS',
      `must list HTTP statuses and reset, reset-mid-body, malformed or truncated (got "${unknown}")`,
    );
  }
  return {
    vroStepMs: read.integer('SIMULATOR_VRO_STEP_MS', 2000, 1, 3_600_000),
    vraStepMs: read.integer('SIMULATOR_VRA_STEP_MS', 75, 1, 3_600_000),
    faultProbability,
    faultKinds: faultKinds.length > 0 ? faultKinds : ['500', '503', 'reset', 'malformed'],
  };
}

function origin(entry: string): string {
  const problem = (what: string) =>
    new ConfigError('CORS_ORIGINS', `${what} (got "${entry}"), e.g. https://app.example:8443`);
  let parsed: URL;
  try {
    parsed = new URL(entry);
  } catch {
    throw problem('must list origins: scheme, host and optional port');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw problem('must list http or https origins');
  }
  const extra =
    parsed.username !== '' ||
    parsed.password !== '' ||
    parsed.pathname !== '/' ||
    parsed.search !== '' ||
    parsed.hash !== '' ||
    entry.endsWith('?') ||
    entry.endsWith('#');
  if (extra) throw problem('must list origins only, without a path, query or credentials');
  return parsed.origin;
}

const hostName = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/;

/** One ALLOWED_HOSTS entry: `gateway.example.com` (any port) or `gateway.example.com:8443`. */
function allowedHost(entry: string): AllowedHost {
  const match = /^([^:]+)(?::(\d{1,5}))?$/.exec(entry.toLowerCase());
  const name = match?.[1];
  const port = match?.[2] === undefined ? undefined : Number(match[2]);
  if (
    name === undefined ||
    !hostName.test(name) ||
    name.length > 253 ||
    port === 0 ||
    (port ?? 0) > 65535
  ) {
    throw new ConfigError(
      'ALLOWED_HOSTS',
      `must list host names with an optional port, without scheme or path (got "${entry}"), e.g. gateway.example.com,gateway.example.com:8443`,
    );
  }
  return { name: name.replace(/\.$/, ''), port };
}

/** One TRUSTED_PROXIES entry: an IPv4 or IPv6 address or CIDR range. */
function trustedProxy(entry: string): ProxyRange {
  const range = proxyRange(entry);
  if (range === undefined) {
    throw new ConfigError(
      'TRUSTED_PROXIES',
      `must list IPv4 or IPv6 addresses or CIDR ranges (got "${entry}"), e.g. 10.0.0.5,10.1.0.0/16,fd00::/8`,
    );
  }
  return range;
}

const loopback = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/i;

/**
 * Listening beyond loopback with service credentials and no client
 * authentication would lend those credentials to anyone who can reach the
 * port: refused unless GATEWAY_ALLOW_UNAUTHENTICATED says it is intended.
 */
function refuseOpenExposure(config: Config): void {
  const serviceCredentials = [config.vro, config.vra, config.nsx].some(
    (u) => u.username !== undefined || u.password !== undefined,
  );
  if (
    serviceCredentials &&
    !loopback.test(config.host) &&
    !authenticates(config.auth) &&
    !config.allowUnauthenticated
  ) {
    throw new ConfigError(
      'HOST',
      `is not a loopback address ("${config.host}") while service credentials are configured and no client authentication is (GATEWAY_TOKENS, GATEWAY_TOKENS_FILE or JWT_JWKS_URL): set one, or GATEWAY_ALLOW_UNAUTHENTICATED=true to serve anyway`,
    );
  }
}

/**
 * True when callers must show a credential: a gateway token, a token file
 * (even one that lists none: emptying it revokes every token, it does not
 * open the gateway) or a JWKS is configured.
 */
export function authenticates(auth: Pick<AuthConfig, 'tokens' | 'tokensFile' | 'jwt'>): boolean {
  return auth.tokens.length > 0 || auth.tokensFile !== undefined || auth.jwt !== undefined;
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
  const flag = (name: string): boolean => {
    const raw = text(name)?.toLowerCase();
    if (raw === undefined || raw === 'false' || raw === '0' || raw === 'no') return false;
    if (raw === 'true' || raw === '1' || raw === 'yes') return true;
    throw new ConfigError(name, `must be true or false (got "${raw}")`);
  };
  const readableFile = (name: string): string | undefined => {
    const file = text(name);
    if (file === undefined) return undefined;
    try {
      readFileSync(file);
    } catch {
      throw new ConfigError(name, `names a file that cannot be read ("${file}")`);
    }
    return file;
  };
  const pem = (name: string): string | undefined => {
    const file = readableFile(name);
    if (file === undefined) return undefined;
    const content = readFileSync(file, 'utf8');
    if (!content.includes('-----BEGIN CERTIFICATE-----')) {
      throw new ConfigError(name, `must name a PEM file of certificates ("${file}" has none)`);
    }
    return content;
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
    ca: pem(`${prefix}_CA_FILE`),
    tlsInsecure: flag(`${prefix}_TLS_INSECURE`),
  });
  return { text, integer, matching, oneOf, url, list, upstream, flag, readableFile };
}
