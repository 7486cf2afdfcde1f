import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNsxSimulator, type NsxSimulator } from '../../simulators/nsx/v/index.ts';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import { startVraSimulator, type VraSimulator } from '../../simulators/vra/v7/index.ts';
import { startVroSimulator, type VroSimulator } from '../../simulators/vro/index.ts';
import { findRedisServer, startRedis, type TestRedis } from '../helpers/redis.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { simulatorsEnv } from '../helpers/stack.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { packageUpload } from '../helpers/uploads.ts';
import { bearerOf, providerListCalls, tokensPath, userBearer } from '../helpers/vra.ts';

// What one replica forgets because of a write is forgotten by the others:
// three gateway processes over one set of simulators and a real redis-server;
// replica B reaches Redis through a relay the test can cut, to miss a message.

const redisServer = findRedisServer();
if (redisServer === undefined) {
  console.warn(
    'SKIPPED test/integration/replicas-invalidation.test.ts: redis-server is not installed ' +
      '(apt-get install redis-server; .ci/run installs it)',
  );
}

const samplePackage = readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url));
/** Workflows of the sample package (at version 0.0.0 in it), with the inputs it gives them. */
const test02 = { id: '5af6c1fd-3d12-4418-8542-0afad165cc08', name: 'Test02', inputs: ['a'] };
const test04 = { id: 'd7326934-440c-49d0-af1b-cceca91241e4', name: 'Test04', inputs: ['b'] };
const alice = { username: 'alice@vsphere.local', password: 'alice-pw' };
const bob = { username: 'bob@vsphere.local', password: 'bob-pw' };
/** How soon every replica must answer what a write on another made true. */
const withinMs = 1000;

interface Replica {
  name: string;
  process: SpawnedGateway;
  url: string;
}

type Answer = { data?: any; errors?: Array<{ message: string; extensions?: any }> };

let redis: TestRedis;
let relay: TcpProxy;
let vro: VroSimulator;
let vra: VraSimulator;
let nsx: NsxSimulator;
let a: Replica;
let b: Replica;
let c: Replica;
/** Measured times from a write's answer on A until B and C both answered the new state, and the rounds of asking. */
const measured: Array<[string, number, number]> = [];

async function startReplica(name: string, redisUrl: string): Promise<Replica> {
  const process = spawnGateway({
    PORT: '0',
    LOG_LEVEL: 'info',
    ...simulatorsEnv({ vro, vra, nsx }),
    REDIS_URL: redisUrl,
    SESSION_SECRET: 'replicas-share-this-session-secret-0123456789',
  });
  const port = await process.port();
  return { name, process, url: `http://127.0.0.1:${port}` };
}

async function gql(
  replica: Replica,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as Answer;
}

/** Waits (up to 15 s) until the replica says Redis is `state`. */
async function untilRedisIs(replica: Replica, state: 'up' | 'unavailable'): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const body = (await (await fetch(`${replica.url}/ready`)).json()) as { redis?: string };
    if (body.redis === state) return;
    if (Date.now() > deadline) throw new Error(`${replica.name}: redis is ${String(body.redis)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Asks B and C (one after the other, again every 20 ms) until both answer
 * what `isNew` accepts; fails after `withinMs`. Answers how long it took from `since`.
 */
async function untilBothAnswerNew(
  what: string,
  since: number,
  ask: (replica: Replica) => Promise<Answer>,
  isNew: (answer: Answer) => boolean,
): Promise<number> {
  for (let round = 1; ; round += 1) {
    const answers = [await ask(b), await ask(c)];
    if (answers.every(isNew)) {
      const elapsed = Date.now() - since;
      measured.push([what, elapsed, round]);
      return elapsed;
    }
    if (Date.now() - since > withinMs) {
      throw new Error(`${what}: still old after ${withinMs} ms: ${JSON.stringify(answers)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const workflowQuery = `query ($name: String!) {
  workflows(filter: { name: $name }, first: 1) { nodes { id version inputParameters { name } form { fields { name } } } }
}`;

/** The workflow's input names and form field names as a replica answers them. */
async function workflowShape(replica: Replica, name: string) {
  const answer = await gql(replica, workflowQuery, { name });
  expect(answer.errors).toBeUndefined();
  const node = answer.data.workflows.nodes[0];
  return {
    inputs: node.inputParameters.map((p: { name: string }) => p.name) as string[],
    fields: node.form.fields.map((f: { name: string }) => f.name) as string[],
  };
}

/** vRO reads of a workflow's detail or form since `from`. */
const vroReadsOf = (id: string, from: number): RecordedRequest[] =>
  vro.requests
    .slice(from)
    .filter(
      (r) =>
        r.method === 'GET' &&
        (r.path.endsWith(`/workflows/${id}/`) || r.path.endsWith(`/workflows/${id}/presentation/`)),
    );

/** A workflow of the package, as the simulator holds it before the import: other inputs, same version. */
function beforeImport(workflow: { id: string; name: string }): void {
  vro.putWorkflow({
    id: workflow.id,
    name: workflow.name,
    version: '0.0.0',
    category: 'Test',
    inputs: [{ name: 'before', type: 'string' }],
    outputs: [],
  });
}

async function importPackage(replica: Replica): Promise<void> {
  const { body, contentType } = await packageUpload(samplePackage);
  const response = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': contentType, 'x-graphql-csrf': '1' },
    body,
  });
  const answer = (await response.json()) as Answer;
  expect(answer.errors).toBeUndefined();
  expect(answer.data.importPackage.imported).toBe(true);
}

const byName = `query ($name: String!) { providerByName(name: $name) { id name } }`;
const catalogItems = '{ catalogItems(first: 1) { totalCount } }';

async function revoke(bearer: string): Promise<void> {
  const token = bearer.slice('Bearer '.length);
  const answer = await fetch(new URL(`${tokensPath}/${token}`, vra.url), { method: 'DELETE' });
  expect(answer.status).toBe(204);
}

const code = (answer: Answer): unknown => answer.errors?.[0]?.extensions?.code;

/** The provider named `name` takes a new id in vRA (reinstalled): the old id answers 404. */
function reinstall(name: string, newId: string): string {
  const index = vra.providers.findIndex((p) => p.name === name);
  const old = vra.providers[index]!;
  vra.providers.splice(index, 1, { ...old, id: newId });
  return old.id;
}

const publish = `mutation ($input: PublishBlueprintInput!) { publishBlueprint(input: $input) { catalogItem { id } } }`;
const blueprint = (providerName: string, virtualMachineTemplateId: string) => ({
  virtualMachineTemplateId,
  name: `Published on ${providerName}`,
  description: 'published against a provider that has just been reinstalled',
  iconId: 'cafe_default_icon_genericCatalogItem',
  catalogItemTypeId: 'com.vmware.csp.iaas.blueprint.service.machine',
  outputResourceTypeId: 'Infrastructure.Virtual',
  organization: { tenantRef: vra.tenant, tenantLabel: vra.tenant },
  providerName,
});

describe.skipIf(redisServer === undefined)(
  'an invalidation shared by three replicas through Redis',
  () => {
    beforeAll(async () => {
      redis = await startRedis(redisServer ?? 'redis-server');
      relay = await startTcpProxy(redis.port);
      [vro, vra, nsx] = await Promise.all([
        startVroSimulator(),
        startVraSimulator({ users: [alice, bob] }),
        startNsxSimulator(),
      ]);
      [a, b, c] = await Promise.all([
        startReplica('A', redis.url),
        startReplica('B', `redis://127.0.0.1:${relay.port}`),
        startReplica('C', redis.url),
      ]);
      for (const replica of [a, b, c]) await untilRedisIs(replica, 'up');
    }, 60_000);

    afterAll(async () => {
      console.info(
        `time from a write's answer on A until B and C answered the new state: ${measured
          .map(([what, ms, rounds]) => `${what} ${ms} ms (${rounds} round${rounds > 1 ? 's' : ''})`)
          .join('; ')}`,
      );
      for (const replica of [a, b, c]) replica.process.kill();
      await Promise.all([a, b, c].map((r) => r.process.exited));
      await Promise.all([relay.close(), redis.close(), vro.close(), vra.close(), nsx.close()]);
    });

    it("serves a workflow's new inputs and form on B and C within 1 s of a package import through A", async () => {
      beforeImport(test02);
      for (const replica of [a, b, c]) {
        expect(await workflowShape(replica, test02.name)).toEqual({
          inputs: ['before'],
          fields: ['before'],
        });
      }
      // Kept by every replica: the detail and the form were read once for all three.
      expect(vroReadsOf(test02.id, 0)).toHaveLength(2);

      // The package changes the workflow in place: same version, other inputs.
      await importPackage(a);
      const imported = Date.now();
      const from = vro.requests.length;
      await untilBothAnswerNew(
        'importPackage',
        imported,
        (replica) => gql(replica, workflowQuery, { name: test02.name }),
        (answer) =>
          JSON.stringify(answer.data?.workflows?.nodes?.[0]?.inputParameters) === '[{"name":"a"}]',
      );
      expect(await workflowShape(c, test02.name)).toEqual({ inputs: test02.inputs, fields: ['a'] });
      // vRO was asked again, once for both replicas (B read it, C took B's read from Redis).
      expect(vroReadsOf(test02.id, from)).toHaveLength(2);
    });

    it('refuses on B and C, within 1 s, a vRA bearer that vRA refused on A, instead of serving its kept provider list', async () => {
      const bearer = await userBearer(vra, alice);
      const headers = { 'x-vra-authorization': bearer };
      const lookup = (replica: Replica) => gql(replica, byName, { name: 'iaas-service' }, headers);
      for (const replica of [a, b, c]) {
        expect((await lookup(replica)).data?.providerByName?.name).toBe('iaas-service');
      }
      const aliceReads = () =>
        providerListCalls(vra).filter((r) => `Bearer ${bearerOf(r)}` === bearer);
      expect(aliceReads()).toHaveLength(1);

      await revoke(bearer);
      const refused = await gql(a, catalogItems, {}, headers);
      expect(code(refused)).toBe('UNAUTHENTICATED');
      await untilBothAnswerNew(
        '401',
        Date.now(),
        lookup,
        (answer) => code(answer) === 'UNAUTHENTICATED',
      );
      // B and C asked vRA with the bearer (and were refused) rather than answer from what they kept.
      expect(aliceReads().length).toBeGreaterThanOrEqual(2);
    });

    it('serves on B and C, within 1 s, the provider list read again after a registration through A found a provider gone', async () => {
      const name = 'Software Service';
      const lookup = (replica: Replica) => gql(replica, byName, { name });
      const before: string[] = [];
      for (const replica of [a, b, c]) before.push((await lookup(replica)).data.providerByName.id);
      const reads = providerListCalls(vra).length;
      const oldId = reinstall(name, 'a0a0a0a0-0000-4000-8000-00000000000c');
      expect(before).toEqual([oldId, oldId, oldId]);

      const stale = await gql(a, publish, {
        input: blueprint(name, 'c0ffee00-0000-4000-8000-00000000000c'),
      });
      expect(code(stale)).toBe('NOT_FOUND');
      const answered = Date.now();
      await untilBothAnswerNew(
        'registration 404',
        answered,
        lookup,
        (answer) => answer.data?.providerByName?.id === 'a0a0a0a0-0000-4000-8000-00000000000c',
      );
      // Read again once for all replicas.
      expect(providerListCalls(vra).length - reads).toBe(1);
    });

    describe('with B cut off from Redis while A writes', () => {
      /** Cuts B off, runs the write on A, lets B reach Redis again; B answered `whileCut` meanwhile. */
      async function missedByB(
        whileCut: () => Promise<void>,
        write: () => Promise<void>,
      ): Promise<void> {
        relay.cut();
        await untilRedisIs(b, 'unavailable');
        await write();
        // B keeps to what it has while Redis is out of reach: the old state.
        await whileCut();
        relay.restore();
        await untilRedisIs(b, 'up');
      }

      it('does not serve on B, once it reaches Redis again, the workflow detail kept from before an import it missed', async () => {
        beforeImport(test04);
        for (const replica of [a, b, c]) {
          expect((await workflowShape(replica, test04.name)).inputs).toEqual(['before']);
        }
        await missedByB(
          async () => expect((await workflowShape(b, test04.name)).inputs).toEqual(['before']),
          () => importPackage(a),
        );
        const from = vro.requests.length;
        expect(await workflowShape(b, test04.name)).toEqual({
          inputs: test04.inputs,
          fields: ['b'],
        });
        expect(await workflowShape(c, test04.name)).toEqual({
          inputs: test04.inputs,
          fields: ['b'],
        });
        expect(vroReadsOf(test04.id, from)).toHaveLength(2);
      }, 40_000);

      it('refuses on B, once it reaches Redis again, a bearer vRA refused on A meanwhile', async () => {
        const bearer = await userBearer(vra, bob);
        const headers = { 'x-vra-authorization': bearer };
        const lookup = (replica: Replica) =>
          gql(replica, byName, { name: 'iaas-service' }, headers);
        for (const replica of [a, b, c]) {
          expect((await lookup(replica)).data?.providerByName?.name).toBe('iaas-service');
        }
        await missedByB(
          async () => expect((await lookup(b)).data?.providerByName?.name).toBe('iaas-service'),
          async () => {
            await revoke(bearer);
            expect(code(await gql(a, catalogItems, {}, headers))).toBe('UNAUTHENTICATED');
          },
        );
        const from = providerListCalls(vra).length;
        expect(code(await lookup(b))).toBe('UNAUTHENTICATED');
        expect(`Bearer ${bearerOf(providerListCalls(vra)[from])}`).toBe(bearer);
      }, 40_000);

      it('serves on B, once it reaches Redis again, the provider list read after a registration on A found a provider gone', async () => {
        const name = 'Container Service';
        const lookup = (replica: Replica) => gql(replica, byName, { name });
        const oldId = (await lookup(a)).data.providerByName.id as string;
        for (const replica of [b, c])
          expect((await lookup(replica)).data.providerByName.id).toBe(oldId);
        const newId = 'a0a0a0a0-0000-4000-8000-0000000000cb';
        reinstall(name, newId);
        await missedByB(
          async () => expect((await lookup(b)).data.providerByName.id).toBe(oldId),
          async () => {
            const stale = await gql(a, publish, {
              input: blueprint(name, 'c0ffee00-0000-4000-8000-0000000000cb'),
            });
            expect(code(stale)).toBe('NOT_FOUND');
          },
        );
        expect((await lookup(b)).data.providerByName.id).toBe(newId);
        expect((await lookup(c)).data.providerByName.id).toBe(newId);
      }, 40_000);
    });
  },
);
