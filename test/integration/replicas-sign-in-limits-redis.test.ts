import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/cache/redis-store.ts';
import { loadConfig } from '../../src/config.ts';
import type { GatewayConfig } from '../../src/gateway-config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { createGateway } from '../../src/server.ts';
import { startNsxSimulator, type NsxSimulator } from '../../simulators/nsx/v/index.ts';
import { startVraSimulator, type VraSimulator } from '../../simulators/vra/v7/index.ts';
import { startVroSimulator, type VroSimulator } from '../../simulators/vro/index.ts';
import { findRedisServer, startRedis, type TestRedis } from '../helpers/redis.ts';
import { listen, memoryAuditLog, simulatorsEnv } from '../helpers/stack.ts';
import { tokenRequests } from '../helpers/vra.ts';

// Three gateways over one real redis-server: the sign-in limits are counted
// together, so spreading attempts over the replicas gains an attacker nothing;
// while Redis is down each replica still holds its own limits.

const redisServer = findRedisServer();
if (redisServer === undefined) {
  console.warn(
    'SKIPPED test/integration/replicas-sign-in-limits-redis.test.ts: redis-server is not installed',
  );
}

const signInMutation =
  'mutation($u: String!, $p: String!) { signIn(username: $u, password: $p) { name } }';

interface Replica {
  url: string;
  close(): Promise<void>;
}

let redis: TestRedis;
let vro: VroSimulator;
let vra: VraSimulator;
let nsx: NsxSimulator;
let replicas: Replica[] = [];

async function startReplica(): Promise<Replica> {
  const base = loadConfig({
    ...simulatorsEnv({ vro, vra, nsx }),
    REDIS_URL: redis.url,
    SESSION_SECRET: `sign-in-limits-secret-${randomBytes(16).toString('hex')}`,
    TRUSTED_PROXIES: '127.0.0.1',
  });
  const config: GatewayConfig = {
    ...base,
    vro: { ...base.vro, url: vro.url },
    vra: { ...base.vra, url: vra.url },
    nsx: { ...base.nsx, url: nsx.url },
  };
  const logger = createLogger('silent');
  // A slow answer (beyond the 500 ms default, on a busy test machine) would count on the
  // replica alone, as it should in production: this test is about counting together.
  const remote = new RedisStore({
    url: new URL(redis.url),
    keyPrefix: 'gw:',
    logger,
    commandTimeoutMs: 10_000,
  });
  const gateway = createGateway(config, { logger, remote, audit: memoryAuditLog([]) });
  const http = await listen(gateway);
  const replica = {
    url: http.url,
    async close() {
      await http.close();
      await gateway.close();
      await remote.close();
    },
  };
  await redisIs(replica, 'up');
  return replica;
}

async function redisIs(replica: Replica, state: 'up' | 'unavailable'): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ready = (await (await fetch(`${replica.url}/ready`)).json()) as { redis?: string };
    if (ready.redis === state) return;
    if (Date.now() > deadline) throw new Error(`redis is ${String(ready.redis)}, not ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function signIn(replica: Replica, address: string, u: string, p: string): Promise<string> {
  const response = await fetch(`${replica.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-graphql-csrf': '1',
      'x-forwarded-for': address,
    },
    body: JSON.stringify({ query: signInMutation, variables: { u, p } }),
  });
  const body = (await response.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
  return body.errors?.[0]?.extensions?.code ?? 'ok';
}

const reachedVra = (names: (username: string) => boolean): number =>
  tokenRequests(vra)
    .map((r) => (JSON.parse(r.body.toString('utf8')) as { username: string }).username)
    .filter(names).length;

describe.skipIf(redisServer === undefined)(
  'sign-in limits shared by replicas through Redis',
  () => {
    beforeAll(async () => {
      redis = await startRedis(redisServer ?? 'redis-server');
      [vro, vra, nsx] = await Promise.all([
        startVroSimulator(),
        startVraSimulator(),
        startNsxSimulator(),
      ]);
      replicas = await Promise.all([startReplica(), startReplica(), startReplica()]);
      // Warmed up (schema compiled, service account signed in, Lua scripts loaded): a cold
      // replica on a busy machine can stall past Redis's command timeout and count on its own.
      for (const [i, replica] of replicas.entries()) {
        await signIn(replica, '192.0.2.1', `warm-up-${i}@vsphere.local`, 'guess');
        await redisIs(replica, 'up');
      }
    }, 60_000);

    afterAll(async () => {
      await Promise.all(replicas.map((replica) => replica.close()));
      await Promise.all([redis.close(), vro.close(), vra.close(), nsx.close()]);
    });

    it('lets exactly 5 of 39 parallel wrong sign-ins for one user, spread over 3 replicas, reach vRA; Redis never holds the user name', async () => {
      const user = 'spread-victim@vsphere.local';
      const codes = await Promise.all(
        Array.from({ length: 39 }, (_, i) =>
          signIn(replicas[i % 3]!, `198.51.100.${i}`, user, `guess-${i}`),
        ),
      );
      expect(reachedVra((name) => name === user)).toBe(5);
      expect(codes.filter((code) => code === 'UNAUTHENTICATED')).toHaveLength(5);
      expect(codes.filter((code) => code === 'RATE_LIMITED')).toHaveLength(34);
      const keys = await redis.client.keys('*');
      expect(keys.join()).not.toContain('spread-victim');
    });

    it('lets at most 20 of 27 user names from one address, spread over 3 replicas, reach vRA', async () => {
      const codes = await Promise.all(
        Array.from({ length: 27 }, (_, i) =>
          signIn(replicas[i % 3]!, '203.0.113.50', `spray-${i}@vsphere.local`, 'guess'),
        ),
      );
      expect(reachedVra((name) => name.startsWith('spray-'))).toBe(20);
      expect(codes.filter((code) => code === 'RATE_LIMITED')).toHaveLength(7);
    });

    it('while Redis is down, still holds each replica to its own limits', async () => {
      await redis.stop();
      try {
        await Promise.all(replicas.map((replica) => redisIs(replica, 'unavailable')));
        const user = 'outage-victim@vsphere.local';
        const codes = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            signIn(replicas[i % 3]!, `198.51.100.${100 + i}`, user, `guess-${i}`),
          ),
        );
        expect(reachedVra((name) => name === user)).toBe(15);
        expect(codes.filter((code) => code === 'RATE_LIMITED')).toHaveLength(15);
      } finally {
        await redis.restart();
      }
    });
  },
);
