/**
 * A secret is redacted in whatever form an upstream echoes it (issue 13,
 * item 6): passwords with quotes and backslashes, echoed raw, JSON- and
 * XML-escaped, URL- and base64-encoded, must reach neither the client
 * (message, extensions.upstream), nor the log, nor a trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.ts';
import { echoOf, leaksIn, logLines, startTraceSink } from '../helpers/secrets.ts';
import { startStack, type GraphQLAnswer, type Stack } from '../helpers/stack.ts';

const secret = {
  vraPassword: 'Pa"ss\\wd-9',
  vroPassword: "<vr&o> 'pa+ss/wo=rd'",
  nsxPassword: 'n\\s"x é 日本 😀 +/=',
  gatewayToken: 'Gw-T0ken.secret_1',
  userVroPassword: 'us"er<vro>\\ %20+',
};
const users = { vro: 'alice' };
const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

const log = logLines();
let sink: Awaited<ReturnType<typeof startTraceSink>>;
let stack: Stack;

beforeAll(async () => {
  sink = await startTraceSink();
  stack = await startStack({
    env: { GATEWAY_TOKENS: secret.gatewayToken, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url },
    vra: { password: secret.vraPassword },
    vro: { password: secret.vroPassword },
    nsx: { password: secret.nsxPassword },
    logger: createLogger('debug', log),
  });
});
afterAll(async () => {
  await stack.close();
  await sink.close();
});

async function ask(
  query: string,
  headers: Record<string, string> = {},
): Promise<{ answer: GraphQLAnswer; text: string }> {
  const response = await stack.fetch('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: `Bearer ${secret.gatewayToken}`,
      ...headers,
    },
    body: JSON.stringify({ query }),
  });
  const text = await response.text();
  const body = JSON.parse(text) as Omit<GraphQLAnswer, 'status' | 'headers'>;
  return {
    answer: { ...body, status: response.status, headers: response.headers },
    text: `${JSON.stringify([...response.headers.entries()])}\n${text}`,
  };
}

/** Everything the gateway said since `from` log lines: to the client, in its log, in its traces. */
async function everythingSaid(answerText: string, fromLine: number): Promise<string> {
  await stack.gateway.tracing?.forceFlush();
  return [answerText, ...log.lines.slice(fromLine), ...sink.bodies].join('\n');
}

describe('secrets echoed in every encoding', () => {
  it('a token endpoint that echoes the login body gets no form of VRA_PASSWORD out', async () => {
    const from = log.lines.length;
    const login = { username: stack.vra.username, password: secret.vraPassword, tenant: 'x' };
    stack.vra.faults.inject({
      fault: {
        kind: 'status',
        status: 400,
        body: JSON.stringify({
          errors: [
            {
              code: 10101,
              message: `Invalid login ${JSON.stringify(login)}; ${echoOf(secret.vraPassword, stack.vra.username)}`,
            },
          ],
        }),
        contentType: 'application/json',
      },
      path: /tokens$/,
      times: 1,
    });
    const { answer, text } = await ask('{ providers(first: 1) { totalCount } }');
    // the service account's login is none of the caller's doing
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'UPSTREAM_ERROR',
      upstream: { service: 'vra', status: 400, code: '10101' },
    });
    expect(answer.errors?.[0]?.message).toContain('Invalid login');
    expect(answer.errors?.[0]?.message).toContain('[redacted]');
    expect(leaksIn(await everythingSaid(text, from), secret)).toEqual([]);
  });

  it('an orchestration server that echoes its password in a JSON message gets none of it out', async () => {
    const from = log.lines.length;
    stack.vro.faults.inject({
      fault: {
        kind: 'status',
        status: 500,
        body: JSON.stringify({ message: echoOf(secret.vroPassword, stack.vro.username) }),
        contentType: 'application/json',
      },
      times: 1,
    });
    const { answer, text } = await ask('{ workflows(first: 1) { totalCount } }');
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_ERROR');
    expect(leaksIn(await everythingSaid(text, from), secret)).toEqual([]);
  });

  it('a network manager that echoes its password in XML details gets none of it out', async () => {
    const from = log.lines.length;
    const details = echoOf(secret.nsxPassword, stack.nsx.username)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;');
    stack.nsx.faults.inject({
      fault: {
        kind: 'status',
        status: 400,
        body: `<error><details>${details}</details><errorCode>210</errorCode></error>`,
        contentType: 'application/xml',
      },
      times: 1,
    });
    const { answer, text } = await ask('{ ipSets { id } }');
    expect(answer.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      upstream: { service: 'nsx', status: 400, code: '210' },
    });
    expect(leaksIn(await everythingSaid(text, from), secret)).toEqual([]);
  });

  it("an upstream that echoes a user's own credential, another upstream's password and the gateway token gets none of them out", async () => {
    const from = log.lines.length;
    const vraToken = stack.vra.issuedTokens().at(-1) ?? 'no-token-yet';
    stack.vro.faults.inject({
      fault: {
        kind: 'status',
        status: 401,
        body: [
          echoOf(secret.userVroPassword, users.vro),
          echoOf(secret.gatewayToken),
          echoOf(secret.nsxPassword),
          echoOf(vraToken),
        ].join(' | '),
        contentType: 'text/plain',
      },
      times: 1,
    });
    const { answer, text } = await ask('{ workflows(first: 1) { totalCount } }', {
      'x-vro-authorization': basic(users.vro, secret.userVroPassword),
    });
    expect(answer.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(leaksIn(await everythingSaid(text, from), { ...secret, vraToken })).toEqual([]);
  });

  it('a bearer token vRA issued is redacted in every encoding while the gateway holds it', async () => {
    const warmed = await ask('{ providers(first: 1) { totalCount } }');
    expect(warmed.answer.errors).toBeUndefined();
    const vraToken = stack.vra.issuedTokens().at(-1) ?? '';
    expect(vraToken).not.toBe('');
    const from = log.lines.length;
    stack.nsx.faults.inject({
      fault: {
        kind: 'status',
        status: 500,
        body: `<error><details>${echoOf(vraToken).replace(/&/g, '&amp;').replace(/</g, '&lt;')}</details><errorCode>1</errorCode></error>`,
        contentType: 'application/xml',
      },
      times: 1,
    });
    const { text } = await ask('{ ipSets { id } }');
    expect(leaksIn(await everythingSaid(text, from), { vraToken })).toEqual([]);
  });

  it('a request id that is a secret reaches neither the log nor a trace', async () => {
    const from = log.lines.length;
    const sinkFrom = sink.bodies.length;
    const { answer } = await ask('query Sets { ipSets { id } }', {
      'x-request-id': secret.gatewayToken,
    });
    expect(answer.errors).toBeUndefined();
    await stack.gateway.tracing?.forceFlush();
    const said = [...log.lines.slice(from), ...sink.bodies.slice(sinkFrom)].join('\n');
    expect(said).toContain('gateway.request.id');
    expect(said).toContain('"requestId":"[redacted]"');
    expect(leaksIn(said, secret)).toEqual([]);
  });

  it('no log line and no trace of the whole file carries a secret', async () => {
    await stack.gateway.tracing?.forceFlush();
    expect(log.lines.length).toBeGreaterThan(4);
    expect(sink.bodies.length).toBeGreaterThan(0);
    expect(leaksIn([...log.lines, ...sink.bodies].join('\n'), secret)).toEqual([]);
    for (const line of log.lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});
