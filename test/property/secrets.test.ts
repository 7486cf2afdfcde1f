/**
 * Secrets with every awkward character (quotes, backslashes, <>&, spaces,
 * + / =, unicode), echoed by the upstreams in every encoding the contract
 * names, never come out of the gateway: not in the answer, not in its log
 * (issue 13, item 6).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.ts';
import type { FaultRule } from '../../simulators/faults.ts';
import { check } from '../helpers/property.ts';
import { echoOf, leaksIn, logLines } from '../helpers/secrets.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

const awkward = [
  '"',
  '\\',
  '<',
  '>',
  '&',
  "'",
  ' ',
  '+',
  '/',
  '=',
  '%',
  ':',
  'é',
  '日',
  '😀',
  '\t',
];

/** 8 to 24 characters, at least one letter or digit and four different characters. */
const secretArbitrary = fc
  .array(fc.oneof(fc.constantFrom(...awkward), fc.stringMatching(/^[A-Za-z0-9]$/)), {
    minLength: 8,
    maxLength: 24,
  })
  .map((parts) => parts.join(''))
  .filter((secret) => /[A-Za-z0-9]/.test(secret) && new Set(secret).size >= 4);

/** A retried 500 would only make the runs slow. */
const noRetries = { UPSTREAM_RETRIES: '0' };

const statusArbitrary = fc.constantFrom(400, 401, 403, 409, 500);

const everything =
  '{ workflows(first: 1) { totalCount } providers(first: 1) { totalCount } ipSets { id } }';

const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

/** What each upstream answers: its own error body, repeating `text`. */
function echoing(status: number, text: string): Record<'vro' | 'vra' | 'nsx', FaultRule> {
  const xml = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return {
    vro: {
      fault: {
        kind: 'status',
        status,
        body: JSON.stringify({ message: text }),
        contentType: 'application/json',
      },
    },
    vra: {
      fault: {
        kind: 'status',
        status,
        body: JSON.stringify({ errors: [{ code: 10101, message: text }] }),
        contentType: 'application/json',
      },
    },
    nsx: {
      fault: {
        kind: 'status',
        status,
        body: `<error><details>${xml}</details><errorCode>210</errorCode></error>`,
        contentType: 'application/xml',
      },
    },
  };
}

async function answerText(stack: Stack, headers: Record<string, string>): Promise<string> {
  const response = await stack.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query: everything }),
  });
  const body = await response.text();
  const answer = JSON.parse(body) as { errors?: unknown[] };
  expect(answer.errors).toHaveLength(3);
  return `${JSON.stringify([...response.headers.entries()])}\n${body}`;
}

describe("a user's own credentials", () => {
  const log = logLines();
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: noRetries, logger: createLogger('debug', log) });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('never come out when every upstream echoes them in every encoding', async () => {
    await check(
      fc.record({ vro: secretArbitrary, nsx: secretArbitrary, status: statusArbitrary }),
      async ({ vro, nsx, status }) => {
        const from = log.lines.length;
        const text = [echoOf(vro, 'alice'), echoOf(nsx, 'bob')].join(' | ');
        const faults = echoing(status, text);
        for (const service of ['vro', 'vra', 'nsx'] as const) {
          stack[service].faults.clear();
          stack[service].faults.inject(faults[service]);
        }
        const said = await answerText(stack, {
          'x-vro-authorization': basic('alice', vro),
          'x-nsx-authorization': basic('bob', nsx),
        });
        const leaks = leaksIn([said, ...log.lines.slice(from)].join('\n'), { vro, nsx });
        expect(leaks).toEqual([]);
      },
    );
  });
});

describe('the configured passwords and gateway tokens', () => {
  it('never come out when every upstream echoes them in every encoding', async () => {
    await check(
      fc.record({
        vro: secretArbitrary,
        vra: secretArbitrary,
        nsx: secretArbitrary,
        token: fc.stringMatching(/^[A-Za-z0-9._~+/=-]{12,40}$/),
        status: statusArbitrary,
      }),
      async ({ vro, vra, nsx, token, status }) => {
        const log = logLines();
        const stack = await startStack({
          env: { ...noRetries, GATEWAY_TOKENS: token },
          vro: { password: vro },
          vra: { password: vra },
          nsx: { password: nsx },
          logger: createLogger('debug', log),
        });
        try {
          const login = JSON.stringify({
            username: stack.vra.username,
            password: vra,
            tenant: 't',
          });
          const text = [
            `login ${login}`,
            echoOf(vro, stack.vro.username),
            echoOf(vra, stack.vra.username),
            echoOf(nsx, stack.nsx.username),
            echoOf(token),
          ].join(' | ');
          const faults = echoing(status, text);
          for (const service of ['vro', 'vra', 'nsx'] as const)
            stack[service].faults.inject(faults[service]);
          const said = await answerText(stack, { authorization: `Bearer ${token}` });
          expect(leaksIn([said, ...log.lines].join('\n'), { vro, vra, nsx, token })).toEqual([]);
        } finally {
          await stack.close();
        }
      },
      12,
    );
  });
});
