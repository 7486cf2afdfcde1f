import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate } from 'node:timers/promises';
import { createSchema, createYoga } from 'graphql-yoga';
import { GraphQLScalarType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.ts';
import { safeResults } from '../../src/plugins/safe-results.ts';
import { nestedArrays } from '../helpers/deep-values.ts';
import { SseSubscription } from '../helpers/sse.ts';

/** 100,000 arrays deep: more than JSON.stringify's stack holds. */
const tooDeep = () => nestedArrays(100_000);

// A scalar that passes anything through, as a careless resolver or scalar might.
const Raw = new GraphQLScalarType({ name: 'Raw', serialize: (value) => value });

let server: Server;
let base: string;
const unwritten: string[] = [];

beforeAll(async () => {
  const logger = createLogger('error', { write: (line: string) => void unwritten.push(line) });
  const yoga = createYoga({
    schema: createSchema({
      typeDefs: /* GraphQL */ `
        scalar Raw
        type Query {
          deep: Raw
          fine: String
        }
        type Subscription {
          values: Raw
        }
      `,
      resolvers: {
        Raw,
        Query: { deep: () => tooDeep(), fine: () => 'fine' },
        Subscription: {
          values: {
            async *subscribe() {
              for (const values of ['first', tooDeep(), 'last']) {
                await setImmediate();
                yield { values };
              }
            },
          },
        },
      },
    }),
    logging: false,
    plugins: [safeResults(logger)],
  });
  server = createServer(yoga.requestListener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const unwritable = {
  data: null,
  errors: [
    {
      message: 'The answer could not be written: an upstream value is too large or too deep.',
      extensions: { code: 'UPSTREAM_BAD_RESPONSE' },
    },
  ],
};

async function post(query: string, accept: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, text: await response.text() };
}

describe('a result that cannot be written', () => {
  it('is answered over plain JSON as an UPSTREAM_BAD_RESPONSE error, not a 500', async () => {
    const answer = await post('{ deep fine }', 'application/json');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual(unwritable);
    expect(unwritten.some((line) => line.includes('a result could not be written'))).toBe(true);
  });

  it('replaces only its own event of a subscription over SSE; the events after it still come, then complete', async () => {
    const subscription = await SseSubscription.open(base, 'subscription { values }', {});
    const events = [];
    for (let event = await subscription.next(); event !== null; event = await subscription.next()) {
      events.push(event);
    }
    expect(events).toEqual([
      { event: 'next', data: { data: { values: 'first' } } },
      { event: 'next', data: unwritable },
      { event: 'next', data: { data: { values: 'last' } } },
      { event: 'complete', data: null },
    ]);
  });

  it('is answered as an error part over incremental delivery (multipart/mixed)', async () => {
    const answer = await post('{ deep fine }', 'multipart/mixed');
    expect(answer.text).toContain(JSON.stringify(unwritable));
    expect(answer.text.trimEnd().endsWith('-----')).toBe(true);
  });

  it('leaves the server serving', async () => {
    expect(JSON.parse((await post('{ fine }', 'application/json')).text)).toEqual({
      data: { fine: 'fine' },
    });
  });
});
