import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { createReadiness } from '../../src/plugins/readiness.ts';

// No Docker engine or cluster runs where the tests run: these check what the
// image and the manifests promise against the code they ship.
const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const packageJson = JSON.parse(read('package.json')) as {
  dependencies: Record<string, string>;
};

/** Folders of the code the image runs: the gateway and the simulators `npm start` falls back on. */
const codeFolders = ['src', 'simulators'];

/** Every TypeScript file under `src/` and `simulators/`. */
function sourceFiles(): URL[] {
  return codeFolders.flatMap((folder) => {
    const dir = new URL(`${folder}/`, root);
    return readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => new URL(name, dir));
  });
}

/** Packages a source file loads at run time (type-only imports are erased). */
function runtimePackages(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/^import\s+(type\s+)?[^'"]*?from\s+'([^'.][^']*)'/gms)) {
    const [, typeOnly, specifier] = match;
    if (typeOnly !== undefined || specifier === undefined || specifier.startsWith('node:'))
      continue;
    const parts = specifier.split('/');
    found.push(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier));
  }
  return found;
}

describe('the Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1) ?? '';

  it('builds on Node 24 in every stage and installs no dev dependency', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage).toMatch(/^node:24[-\w.]*\s/);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(runtime).not.toMatch(/npm (ci|install)/);
  });

  it('runs as the unprivileged node user, checks /health, and starts as npm start does', () => {
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*\n?.*\/health/m);
    const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts
      .start;
    const cmd = /^CMD (\[.*\])$/m.exec(runtime)?.[1];
    expect(start).toMatch(/^node .*src\/main\.ts$/);
    expect(JSON.parse(cmd ?? '[]')).toEqual(start.split(' '));
    expect(runtime).toMatch(/^ENV [\s\S]*HOST=0\.0\.0\.0/m);
  });

  it('copies every folder the gateway reads at run time', () => {
    const copied = [...runtime.matchAll(/^COPY (?:--\S+ )*(\S+) /gm)].map((m) => m[1]);
    const readAtRunTime = new Set<string>(codeFolders);
    for (const file of sourceFiles()) {
      const text = readFileSync(file, 'utf8');
      for (const [, target] of text.matchAll(
        /new URL\('((?:\.\.\/)+[^']*)', import\.meta\.url\)/g,
      )) {
        const resolved = new URL(target ?? '', file).pathname.slice(root.pathname.length);
        readAtRunTime.add(resolved.split('/')[0] ?? resolved);
      }
    }
    expect(readAtRunTime.size).toBeGreaterThan(1);
    for (const folder of readAtRunTime) expect(copied).toContain(folder);
  });

  it('is enough: every package src/ and simulators/ load is a production dependency', () => {
    const missing = new Set<string>();
    for (const file of sourceFiles()) {
      for (const name of runtimePackages(readFileSync(file, 'utf8'))) {
        if (!(name in packageJson.dependencies)) missing.add(`${name} (${file.pathname})`);
      }
    }
    expect([...missing]).toEqual([]);
  });
});

interface Manifest {
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown>;
}

describe('the Kubernetes example', () => {
  const folder = new URL('deploy/kubernetes/', root);
  const manifests = readdirSync(folder)
    .filter((name) => name.endsWith('.yaml'))
    .flatMap((name) =>
      parseAllDocuments(readFileSync(new URL(name, folder), 'utf8')).map(
        (doc) => doc.toJS() as Manifest,
      ),
    );
  const deployment = manifests.find(
    (m) => m.kind === 'Deployment' && m.metadata.name === 'vmw-graphql-gateway',
  );
  const spec = deployment?.spec as {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      spec: {
        terminationGracePeriodSeconds: number;
        containers: {
          env: { name: string; value: string }[];
          readinessProbe: { httpGet: { path: string } };
          livenessProbe: { httpGet: { path: string } };
          lifecycle: { preStop: { exec: { command: string[] } } };
        }[];
      };
    };
  };
  const container = spec.template.spec.containers[0];

  it('runs several replicas, ready on /ready and alive on /health', () => {
    expect(spec.replicas).toBeGreaterThanOrEqual(2);
    expect(container?.readinessProbe.httpGet.path).toBe('/ready');
    expect(container?.livenessProbe.httpGet.path).toBe('/health');
  });

  it('probes readiness without the appliances: one appliance down leaves every replica in the Service', async () => {
    // The probe asks /ready as such, not /ready?upstreams=all (503 while any appliance is down).
    expect(container?.readinessProbe.httpGet.path).not.toContain('?');
    const upstreams = (['vro', 'vra', 'nsx'] as const).map((service) => ({
      service,
      health: { circuit: 'closed' as const, running: 0, queued: 0, limit: 32 },
      probe: () => Promise.resolve(service !== 'nsx'),
    }));
    const readiness = createReadiness(upstreams, 10_000);
    const report = await readiness.check();
    expect(report.ready).toBe(true);
    expect(report.allUp).toBe(false);
    expect(report.upstreams['nsx']?.state).toBe('down');
    readiness.draining = true;
    expect((await readiness.check()).ready).toBe(false);
  });

  it('keeps a disruption budget over the same pods', () => {
    const budget = manifests.find((m) => m.kind === 'PodDisruptionBudget');
    expect(budget?.spec['selector']).toEqual(spec.selector);
    expect(budget?.spec['minAvailable']).toBeLessThan(spec.replicas);
  });

  it('gives SIGTERM time to drain: preStop plus SHUTDOWN_GRACE_MS fit the grace period', () => {
    const env = new Map(container?.env.map((e) => [e.name, e.value]));
    const drainSeconds = Number(env.get('SHUTDOWN_GRACE_MS')) / 1000;
    const preStopSeconds = Number(container?.lifecycle.preStop.exec.command.at(-1));
    expect(drainSeconds).toBeGreaterThan(0);
    expect(spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(
      preStopSeconds + drainSeconds,
    );
  });

  it('sets only variables the configuration reference (docs/configuration.md) documents', () => {
    const reference = read('docs/configuration.md');
    const documented = new Set(
      [...reference.matchAll(/^\| ([^|]*\S) +\|/gm)].flatMap(([, cell]) =>
        [...(cell ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]),
      ),
    );
    const secret = manifests.find((m) => m.kind === 'Secret') as unknown as {
      stringData: Record<string, string>;
    };
    const names = [...(container?.env.map((e) => e.name) ?? []), ...Object.keys(secret.stringData)];
    expect(names).toContain('REDIS_URL');
    for (const name of names) expect(documented, name).toContain(name);
  });
});
