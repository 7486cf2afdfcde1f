/**
 * Starts one or all upstream simulators in a process of their own, on loopback
 * ports, and prints where they are as ONE JSON line on stdout:
 *
 *   {"vro":{"url":"http://127.0.0.1:41001/vco/api","username":"vcoadmin","password":"vcoadmin"},
 *    "vra":{"url":"...","username":"...","password":"...","tenant":"vsphere.local"},
 *    "nsx":{"url":"...","username":"...","password":"..."},"control":"http://127.0.0.1:41004"}
 *
 * Point a gateway at them with VRO_URL / VRA_URL / NSX_URL and the printed
 * credentials. SIGTERM or SIGINT closes every server and exits.
 *
 *   node simulators/cli.ts [flags]
 *
 *   --only <list>              vro, vra, nsx, comma-separated (default: all three)
 *   --vro-port, --vra-port, --nsx-port <n>
 *                              listen port of each (default 0: any free port)
 *   --latency-ms <n>           every request is answered after n ms (a delay fault)
 *   --knee <n>                 with --latency-ms: an appliance whose capacity is n requests in
 *                              flight; beyond n, every answer comes after latency-ms × inFlight / n
 *   --fault-probability <p>    each request fails with probability p (0 to 1), with one of
 *                              --fault-kinds picked evenly; a failed request is not delayed
 *   --fault-kinds <list>       HTTP statuses and/or reset, reset-mid-body, malformed, truncated
 *                              (default: 500,503,reset,malformed)
 *   --vro-username, --vro-password           vRO Basic credentials (default vcoadmin / vcoadmin)
 *   --vra-username, --vra-password, --vra-tenant
 *                              vRA identity (default gateway@vsphere.local / simulator / vsphere.local)
 *   --nsx-username, --nsx-password           NSX Basic credentials (default gateway / simulator)
 *   --nsx-manager <kind>       lab (default: both edge API versions, both firewalls), nsx-v
 *                              (NSX-v 6.4: edges under /api/4.0, distributed firewall only) or
 *                              vcns (vCNS 5.x: edges under /api/3.0, vShield App firewall only)
 *   --vra-unauthenticated <answer>
 *                              how vRA 7 answers a request without credentials (but the login),
 *                              /iaas/api/about included: 404 (default), 401-html (Tomcat's page),
 *                              401-json, 403, redirect (302 to /vcac/; redirect-301, -303, -307,
 *                              -308 for another status) or login-page (200 HTML)
 *   --nsx-foreign-paths <answer>
 *                              how NSX-v answers paths outside its API (NSX-T's /api/v1/...):
 *                              the same answers as --vra-unauthenticated
 *   --vra-catalog-items <n>    serve n catalog items: the seeded ones, repeated under new ids
 *   --nsx-firewall-bytes <n>   serve port group dvportgroup-63's firewall with a generated ruleset
 *                              of about n bytes (layer-3 rules with sources, destinations, notes)
 *   --vro-step-ms <n>          how long each state of a workflow run lasts (default 2000)
 *   --vra-step-ms <n>          how long each state of a catalog request lasts (default 75)
 *   --control-port <n>         also serve request counts on 127.0.0.1:<n> (0: any free port):
 *                              GET /counts -> {"vro":{"total":n,"byRoute":{"GET /vco/api/workflows":n}},...}
 *                              POST /counts/reset -> zeroes them. Without it, no counts are kept.
 *                              With --latency-ms, also GET /load -> each simulator's requests in
 *                              flight (now, peak, time-weighted mean, at each arrival) and latency;
 *                              POST /load/reset starts them afresh.
 *   --help                     this text
 *
 * Only loopback addresses are served. The simulators' request logs are folded
 * into the counts twice a second, so a long run does not grow their memory.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import type { Fault, FaultPlan } from './faults.ts';
import {
  guardedAnswers,
  parseGuardedAnswer,
  type GuardedAnswer,
  type RedirectStatus,
} from './guarded-answer.ts';
import { KneeLoad } from './knee.ts';
import { faultOfKind, injectRandomFaults } from './random-faults.ts';
import { startNsxSimulator } from './nsx/v/index.ts';
import type { RecordedRequest } from './sim-server.ts';
import { startVraSimulator } from './vra/v7/index.ts';
import { seedCatalogItems, type SimCatalogItem } from './vra/v7/seed.ts';
import { startVroSimulator } from './vro/index.ts';

type Service = 'vro' | 'vra' | 'nsx';
const services: readonly Service[] = ['vro', 'vra', 'nsx'];

interface Started {
  service: Service;
  requests: RecordedRequest[];
  faults: FaultPlan;
  /** With --latency-ms: the delay and what the load looked like. */
  load?: KneeLoad;
  description: Record<string, string>;
  close(): Promise<void>;
}

class UsageError extends Error {}

function parseFlags() {
  try {
    return parseArgs({
      options: {
        only: { type: 'string' },
        'vro-port': { type: 'string' },
        'vra-port': { type: 'string' },
        'nsx-port': { type: 'string' },
        'latency-ms': { type: 'string' },
        knee: { type: 'string' },
        'fault-probability': { type: 'string' },
        'fault-kinds': { type: 'string' },
        'vro-username': { type: 'string' },
        'vro-password': { type: 'string' },
        'vra-username': { type: 'string' },
        'vra-password': { type: 'string' },
        'vra-tenant': { type: 'string' },
        'nsx-username': { type: 'string' },
        'nsx-password': { type: 'string' },
        'nsx-manager': { type: 'string' },
        'vra-catalog-items': { type: 'string' },
        'vra-unauthenticated': { type: 'string' },
        'nsx-foreign-paths': { type: 'string' },
        'nsx-firewall-bytes': { type: 'string' },
        'vro-step-ms': { type: 'string' },
        'vra-step-ms': { type: 'string' },
        'control-port': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : 'bad flags');
  }
}

let values: ReturnType<typeof parseFlags>;

function integer(name: string, min: number, max: number): number | undefined {
  const raw = values[name as keyof typeof values];
  if (raw === undefined || typeof raw !== 'string') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(raw);
}

function probability(): number {
  const raw = values['fault-probability'];
  if (raw === undefined) return 0;
  const p = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(p) || p < 0 || p > 1) {
    throw new UsageError('--fault-probability must be a number from 0 to 1');
  }
  return p;
}

function nsxManager(): 'lab' | 'nsx-v' | 'vcns' {
  const raw = values['nsx-manager'] ?? 'lab';
  if (raw === 'lab' || raw === 'nsx-v' || raw === 'vcns') return raw;
  throw new UsageError('--nsx-manager must be lab, nsx-v or vcns');
}

/** The answer a flag names (parseGuardedAnswer), as simulator options. */
function guarded(
  name: 'vra-unauthenticated' | 'nsx-foreign-paths',
): { answer: GuardedAnswer; redirectStatus?: RedirectStatus } | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const parsed = parseGuardedAnswer(raw.trim());
  if (parsed === undefined) {
    throw new UsageError(
      `--${name} must be one of ${guardedAnswers.join(', ')}, or redirect-301 … redirect-308`,
    );
  }
  return parsed;
}

function faultKinds(): Fault[] {
  const list = (values['fault-kinds'] ?? '500,503,reset,malformed').split(',');
  return list.map((raw): Fault => {
    const fault = faultOfKind(raw.trim());
    if (fault === undefined) throw new UsageError(`--fault-kinds: unknown fault "${raw.trim()}"`);
    return fault;
  });
}

function selected(): Service[] {
  if (values.only === undefined) return [...services];
  const names = values.only.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!services.includes(name as Service)) throw new UsageError(`--only: unknown "${name}"`);
  }
  return services.filter((service) => names.includes(service));
}

function credentials(service: Service): { username?: string; password?: string } {
  const username = values[`${service}-username`];
  const password = values[`${service}-password`];
  return {
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
  };
}

/** The seeded catalog items, repeated under new ids and names until there are `count`. */
function catalogItems(count: number, tenant: string): SimCatalogItem[] {
  const seeds = seedCatalogItems(tenant);
  return Array.from({ length: count }, (_, n) => {
    const seed = seeds[n % seeds.length];
    if (seed === undefined) throw new Error('no seeded catalog items');
    if (n < seeds.length) return seed;
    const round = Math.floor(n / seeds.length) + 1;
    const id = `c0de0000-0000-4000-8000-${(n + 1).toString(16).padStart(12, '0')}`;
    const name = `${seed.name} ${round}`;
    const bindingId =
      seed.providerBinding.bindingId === seed.id ? id : `${tenant}!::!${name.replace(/\W/g, '')}`;
    return {
      ...seed,
      id,
      name,
      providerBinding: { ...seed.providerBinding, bindingId },
    };
  });
}

/** A started simulator as the CLI keeps and prints it; `extra` joins its description. */
function started(
  service: Service,
  sim: Pick<Started, 'requests' | 'faults' | 'close'> & {
    url: URL;
    username: string;
    password: string;
  },
  extra: Record<string, string> = {},
): Started {
  return {
    service,
    requests: sim.requests,
    faults: sim.faults,
    description: {
      url: sim.url.href.replace(/\/$/, ''),
      username: sim.username,
      password: sim.password,
      ...extra,
    },
    close: () => sim.close(),
  };
}

async function start(service: Service): Promise<Started> {
  const port = integer(`${service}-port`, 0, 65535);
  const at = port === undefined ? {} : { port };
  switch (service) {
    case 'vro': {
      const stepMs = integer('vro-step-ms', 1, 3_600_000);
      const sim = await startVroSimulator({
        ...at,
        ...credentials('vro'),
        ...(stepMs === undefined ? {} : { stepMs }),
      });
      return started(service, sim);
    }
    case 'vra': {
      const tenant = values['vra-tenant'] ?? 'vsphere.local';
      const items = integer('vra-catalog-items', 0, 100_000);
      const requestStepMs = integer('vra-step-ms', 1, 3_600_000);
      const unauthenticated = guarded('vra-unauthenticated');
      const sim = await startVraSimulator({
        ...at,
        ...credentials('vra'),
        tenant,
        ...(items === undefined ? {} : { catalogItems: catalogItems(items, tenant) }),
        ...(requestStepMs === undefined ? {} : { requestStepMs }),
        ...(unauthenticated === undefined
          ? {}
          : { unauthenticated: unauthenticated.answer, ...redirectOf(unauthenticated) }),
      });
      return started(service, sim, { tenant: sim.tenant });
    }
    case 'nsx': {
      const firewallBytes = integer('nsx-firewall-bytes', 1, 64 * 2 ** 20);
      const foreign = guarded('nsx-foreign-paths');
      const sim = await startNsxSimulator({
        ...at,
        ...credentials('nsx'),
        manager: nsxManager(),
        ...(firewallBytes === undefined ? {} : { firewallBytes }),
        ...(foreign === undefined ? {} : { foreignPaths: foreign.answer, ...redirectOf(foreign) }),
      });
      return started(service, sim);
    }
  }
}

function redirectOf(parsed: { redirectStatus?: RedirectStatus }): {
  redirectStatus?: RedirectStatus;
} {
  return parsed.redirectStatus === undefined ? {} : { redirectStatus: parsed.redirectStatus };
}

/** Faults first (each kind an equal share of `p`), then the delay: the first matching rule wins. */
function injectFaults(sim: Started, latencyMs: number, p: number, kinds: readonly Fault[]): void {
  injectRandomFaults(sim.faults, p, kinds);
  if (sim.load !== undefined) {
    const load = sim.load;
    sim.faults.inject({ fault: { kind: 'delay', ms: (response) => load.delayFor(response) } });
  } else if (latencyMs > 0) sim.faults.inject({ fault: { kind: 'delay', ms: latencyMs } });
}

type Counts = Map<string, number>;

/** Folds each simulator's request log into counts by method and path, and empties the log. */
function fold(started: readonly Started[], counts: Map<Service, Counts>): void {
  for (const sim of started) {
    const byRoute = counts.get(sim.service) ?? new Map<string, number>();
    counts.set(sim.service, byRoute);
    for (const request of sim.requests.splice(0)) {
      const key = `${request.method} ${request.rawPath}`;
      byRoute.set(key, (byRoute.get(key) ?? 0) + 1);
    }
  }
}

async function serveControl(
  port: number,
  started: readonly Started[],
  counts: Map<Service, Counts>,
): Promise<Server> {
  const server = createServer((request, response) => {
    fold(started, counts);
    const send = (status: number, body: unknown): void => {
      const text = JSON.stringify(body);
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(text);
    };
    if (request.method === 'GET' && request.url === '/counts') {
      const body: Record<string, { total: number; byRoute: Record<string, number> }> = {};
      for (const [service, byRoute] of counts) {
        let total = 0;
        for (const n of byRoute.values()) total += n;
        body[service] = { total, byRoute: Object.fromEntries(byRoute) };
      }
      send(200, body);
    } else if (request.method === 'POST' && request.url === '/counts/reset') {
      counts.clear();
      fold(started, counts);
      send(200, { reset: true });
    } else if (request.method === 'GET' && request.url === '/load') {
      send(200, Object.fromEntries(started.map((sim) => [sim.service, sim.load?.report()])));
    } else if (request.method === 'POST' && request.url === '/load/reset') {
      for (const sim of started) sim.load?.reset();
      send(200, { reset: true });
    } else send(404, { error: 'GET /counts, POST /counts/reset, GET /load or POST /load/reset' });
    request.resume();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

/** The flags, as documented at the top of this file. */
function usage(): string {
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  const header = source.slice(source.indexOf('/**') + 3, source.indexOf('*/'));
  return header
    .split('\n')
    .map((line) => line.replace(/^ \* ?/, ''))
    .join('\n')
    .trim();
}

async function main(): Promise<void> {
  values = parseFlags();
  if (values.help === true) {
    console.log(usage());
    return;
  }
  const latencyMs = integer('latency-ms', 0, 600_000) ?? 0;
  const p = probability();
  const kinds = faultKinds();
  const controlPort = integer('control-port', 0, 65535);
  const knee = integer('knee', 1, 1_000_000);
  if (knee !== undefined && latencyMs === 0) throw new UsageError('--knee needs --latency-ms');
  const started: Started[] = [];
  for (const service of selected()) {
    const sim = await start(service);
    if (latencyMs > 0) sim.load = new KneeLoad(latencyMs, knee);
    started.push(sim);
  }
  for (const sim of started) injectFaults(sim, latencyMs, p, kinds);

  const counts = new Map<Service, Counts>();
  let control: Server | undefined;
  let folding: NodeJS.Timeout | undefined;
  if (controlPort === undefined) {
    folding = setInterval(() => {
      for (const sim of started) sim.requests.splice(0);
    }, 500);
  } else {
    control = await serveControl(controlPort, started, counts);
    folding = setInterval(() => fold(started, counts), 500);
  }

  const line: Record<string, unknown> = {};
  for (const sim of started) line[sim.service] = sim.description;
  if (control !== undefined) {
    line['control'] = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
  }
  process.stdout.write(`${JSON.stringify(line)}\n`);

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    clearInterval(folding);
    control?.closeAllConnections();
    control?.close();
    void Promise.all(started.map((sim) => sim.close())).then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

try {
  await main();
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`${error.message} (--help for usage)`);
  process.exit(2);
}
