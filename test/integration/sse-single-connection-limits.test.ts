import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const tokenA = 'sse-token-a-0123456789abcdef';
const tokenB = 'sse-token-b-0123456789abcdef';
const streamHeader = 'x-graphql-event-stream-token';
let gateway: SpawnedGateway;
let base: string;
const sockets: Socket[] = [];
beforeAll(async () => {
  gateway = spawnGateway({
    PORT: '0',
    LOG_LEVEL: 'info',
    GATEWAY_TOKENS: `${tokenA},${tokenB}`,
    MAX_SUBSCRIPTIONS_PER_CLIENT: '3',
  });
  base = `http://127.0.0.1:${await gateway.port()}`;
});
afterAll(() => {
  for (const socket of sockets) socket.destroy();
  gateway.kill();
});

const rssOf = (pid: number): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

const reserve = (token: string) =>
  fetch(`${base}/graphql`, { method: 'PUT', headers: { authorization: `Bearer ${token}` } });

/** Opens the stream on a raw socket and never reads it: the client that stalls. */
async function openUnread(streamToken: string, token: string): Promise<Socket> {
  const socket = connect(Number(new URL(base).port), '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `GET /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\naccept: text/event-stream\r\n` +
      `authorization: Bearer ${token}\r\n${streamHeader}: ${streamToken}\r\n\r\n`,
  );
  socket.pause();
  return socket;
}

const introspection = `{ __schema { types { name description fields { name description args { name description } type { name kind ofType { name kind } } } } } }`;

describe('graphql-sse single-connection mode under attack', () => {
  it('refuses a client’s event stream beyond MAX_SUBSCRIPTIONS_PER_CLIENT (429, RATE_LIMITED); another caller has places of its own', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await reserve(tokenA)).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    const refused = await reserve(tokenA);
    expect(
      ((await refused.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]
        ?.extensions.code,
    ).toBe('RATE_LIMITED');
    expect((await reserve(tokenB)).status).toBe(201);
  });

  it('holds a stream that is never read to a bounded queue: further operations are refused (429, RATE_LIMITED) and RSS stays bounded', async () => {
    const streamToken = await (await reserve(tokenB)).text();
    await openUnread(streamToken, tokenB);
    const pid = gateway.child.pid ?? 0;
    const before = rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
    const counts = new Map<number, number>();
    const codes = new Set<string>();
    let next = 0;
    const total = 1500;
    const worker = async (): Promise<void> => {
      while (next < total) {
        next += 1;
        const answer = await fetch(`${base}/graphql`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${tokenB}`,
            [streamHeader]: streamToken,
          },
          body: JSON.stringify({ query: introspection, extensions: { operationId: `op-${next}` } }),
        });
        counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
        if (answer.status === 429) {
          const body = (await answer.json()) as { errors: Array<{ extensions: { code: string } }> };
          codes.add(body.errors[0]?.extensions.code ?? '');
        } else await answer.body?.cancel();
      }
    };
    try {
      await Promise.all(Array.from({ length: 8 }, worker));
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rssOf(pid));
    expect([...counts.keys()].sort()).toEqual([202, 429]);
    expect(counts.get(429)).toBeGreaterThan(total / 2);
    expect([...codes]).toEqual(['RATE_LIMITED']);
    // Unbounded, 1,500 results of 70 KB queued grew it by over 200 MB.
    expect(peak - before).toBeLessThan(120 * 1024 * 1024);
  });
});
