/**
 * A whole session through the gateway (every operation, the failing ways
 * included) with distinctive secrets everywhere; each step then scans the
 * log lines, response bodies and response headers it caused for them, in any
 * encoding (issue 5, point 7; issue 13, item 6).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { DestinationStream } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.ts';
import { leaksIn } from '../helpers/secrets.ts';
import { startStack, type Stack } from '../helpers/stack.ts';
import { iaasProvider } from '../helpers/vra.ts';

const tag = randomBytes(6).toString('hex');
const secret = {
  vroPassword: `S3cr3t-vro-${tag}`,
  vraPassword: `S3cr3t-vra-${tag}`,
  nsxPassword: `S3cr3t-nsx-${tag}`,
  gatewayToken: `Gw-T0ken-${tag}`,
  otherGatewayToken: `Gw-Other-${tag}`,
  userVroPassword: `Us3r-vro-${tag}`,
  userNsxPassword: `Us3r-nsx-${tag}`,
  userVraToken: `Us3r-vra-token-${tag}`,
  wrongServicePassword: `Wr0ng-service-${tag}`,
};
const users = {
  vro: { username: `alice-${tag}`, password: secret.userVroPassword },
  nsx: { username: `bob-${tag}`, password: secret.userNsxPassword },
};
const basic = (username: string, password: string) =>
  Buffer.from(`${username}:${password}`, 'utf8').toString('base64');

const echo = 'aefcfad8-efc8-4849-b3aa-7efe4458a885';
const samplePackage = readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url));

/** Everything the gateway said: log lines and, per exchange, status, headers and body. */
const logLines: string[] = [];
const exchanges: Array<{ label: string; status: number; headers: string; body: string }> = [];
const destination: DestinationStream = {
  write(line: string) {
    logLines.push(line);
  },
};

interface Answer {
  data?: Record<string, any> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

let stack: Stack;
let wrongService: Stack;

async function record(label: string, response: Response): Promise<string> {
  const body = await response.text();
  exchanges.push({
    label,
    status: response.status,
    headers: JSON.stringify([...response.headers.entries()]),
    body,
  });
  return body;
}

/** One GraphQL operation, with the gateway token unless told otherwise. */
async function op(
  label: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  on: Stack = stack,
): Promise<Answer> {
  const response = await on.fetch('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: `Bearer ${secret.gatewayToken}`,
      ...headers,
    },
    body: JSON.stringify({ query, variables }),
  });
  return JSON.parse(await record(label, response)) as Answer;
}

const codes = (answer: Answer) => (answer.errors ?? []).map((e) => e.extensions?.['code']);

beforeAll(async () => {
  const logger = createLogger('debug', destination);
  stack = await startStack({
    env: {
      GATEWAY_TOKENS: `${secret.otherGatewayToken},${secret.gatewayToken}`,
      LOG_LEVEL: 'debug',
      UPSTREAM_TIMEOUT_MS: '1500',
      CIRCUIT_FAILURE_THRESHOLD: '10000',
    },
    vro: { password: secret.vroPassword, stepMs: 20 },
    vra: { password: secret.vraPassword },
    nsx: { password: secret.nsxPassword },
    logger,
  });
  wrongService = await startStack({
    env: { GATEWAY_TOKENS: secret.gatewayToken, LOG_LEVEL: 'debug' },
    vro: { password: secret.vroPassword },
    vra: { password: secret.vraPassword },
    nsx: { password: secret.nsxPassword },
    configure: (config) => ({
      ...config,
      vro: { ...config.vro, password: secret.wrongServicePassword },
      vra: { ...config.vra, password: secret.wrongServicePassword },
      nsx: { ...config.nsx, password: secret.wrongServicePassword },
    }),
    logger,
  });
});
afterAll(async () => {
  await Promise.all([stack.close(), wrongService.close()]);
});

/** Where the scan of the current test starts: the log lines and exchanges before it are not its. */
const scanFrom = { logLines: 0, exchanges: 0 };
beforeEach(() => {
  scanFrom.logLines = logLines.length;
  scanFrom.exchanges = exchanges.length;
});

/** Every secret in any encoding, upstream address or Authorization value the current test made the gateway say. */
function expectNothingSecretSaid(): void {
  const tokens = [...stack.vra.issuedTokens(), ...wrongService.vra.issuedTokens()];
  const needles: Record<string, string> = {
    ...secret,
    ...Object.fromEntries(tokens.map((token, i) => [`vRA token ${i}`, token])),
    'vRO service Basic': basic(stack.vro.username, secret.vroPassword),
    'NSX service Basic': basic(stack.nsx.username, secret.nsxPassword),
    'vRO user Basic': basic(users.vro.username, users.vro.password),
    'NSX user Basic': basic(users.nsx.username, users.nsx.password),
    'wrong vRO Basic': basic(stack.vro.username, secret.wrongServicePassword),
    'wrong NSX Basic': basic(stack.nsx.username, secret.wrongServicePassword),
  };
  const upstreamHosts = [stack, wrongService].flatMap((s) => [
    s.vro.url.host,
    s.vra.url.host,
    s.nsx.url.host,
  ]);
  const places = [
    ...logLines.slice(scanFrom.logLines).map((line, i) => ({ where: `log line ${i}`, text: line })),
    ...exchanges.slice(scanFrom.exchanges).flatMap((e) => [
      { where: `${e.label}: headers`, text: e.headers },
      { where: `${e.label}: body`, text: e.body },
    ]),
  ];
  expect(places.length).toBeGreaterThan(0);
  const leaks: string[] = [];
  for (const { where, text } of places) {
    for (const leak of leaksIn(text, needles)) leaks.push(`${leak} in ${where}`);
    for (const host of upstreamHosts) {
      if (text.includes(host)) leaks.push(`upstream address ${host} in ${where}`);
    }
    const credential = /\b(Basic|Bearer)\s+(?!realm=)[A-Za-z0-9._~+/=-]{6,}/i.exec(text);
    if (credential !== null) leaks.push(`an Authorization value (${credential[1]} …) in ${where}`);
  }
  expect(leaks).toEqual([]);
}

const everything =
  '{ workflows(first: 1) { totalCount } providers(first: 1) { totalCount } ipSets { id } }';
const asUsers = {
  'x-vro-authorization': `Basic ${basic(users.vro.username, users.vro.password)}`,
  'x-vra-authorization': `Bearer ${secret.userVraToken}`,
  'x-nsx-authorization': `Basic ${basic(users.nsx.username, users.nsx.password)}`,
};
const registration = () => ({
  providerId: iaasProvider(stack.vra).id,
  bindingId: 'a0a0a0a0-0000-4000-8000-00000000beef',
  name: 'Secret test',
  description: '',
  iconId: 'icon.png',
  catalogItemTypeId: 'com.vmware.csp.iaas.blueprint.service.machine',
  outputResourceTypeId: 'Infrastructure.Virtual',
  organization: { tenantRef: 'vsphere.local', tenantLabel: 'vsphere.local' },
});
let executionId = '';

describe('a session through the gateway leaks no secret', () => {
  it('in the reads of every upstream', async () => {
    const reads = await op(
      'every query',
      `query ($wf: ID!, $pid: ID!) {
        workflows(first: 2) { totalCount nodes { id name version } }
        workflow(id: $wf) { id name inputParameters { name type } }
        workflowExecution(workflowId: $wf, executionId: "0123456789abcdef0123456789abcdef") { id }
        providers(first: 2) { totalCount nodes { id name } }
        provider(id: $pid) { id name }
        providerByName(name: "iaas-service") { id }
        catalogItems(first: 2) { totalCount nodes { id name provider { name } } }
        ipSets { id name } ipSet(id: "ipset-3") { id name }
        services { id name } service(id: "application-400") { id name }
        applicationFirewall(portGroupId: "dvportgroup-63") { generationNumber rules { id notes } }
      }`,
      { wf: echo, pid: iaasProvider(stack.vra).id },
    );
    expect(reads.errors).toBeUndefined();
    expectNothingSecretSaid();
  });

  it('in a run of a workflow and its subscription', async () => {
    const run = await op(
      'runWorkflow',
      `mutation ($inputs: [WorkflowParameterInput!]) { runWorkflow(workflowId: "${echo}", inputs: $inputs) { execution { id state inputParameters { name value } } } }`,
      {
        inputs: [
          { name: 'text', type: 'string', value: 'hello' },
          // a SecureString the user sends comes back to that user; it is no gateway secret
          { name: 'secret', type: 'SecureString', value: 'user-chosen' },
        ],
      },
    );
    expect(run.errors).toBeUndefined();
    executionId = String(run.data?.['runWorkflow']?.execution.id);
    await subscribe('subscription', executionId, {});
    expectNothingSecretSaid();
  });

  it('in a package import, a catalog registration and a blueprint publication', async () => {
    const uploaded = await upload('importPackage', samplePackage, {});
    expect(uploaded.errors).toBeUndefined();
    const input = registration();
    const registered = await op(
      'registerCatalogItem',
      'mutation ($input: RegisterCatalogItemInput!) { registerCatalogItem(input: $input) { catalogItem { id } } }',
      { input },
    );
    expect(registered.errors).toBeUndefined();
    const { bindingId, ...rest } = input;
    const published = await op(
      'publishBlueprint',
      'mutation ($input: PublishBlueprintInput!) { publishBlueprint(input: $input) { catalogItem { id provider { name } } } }',
      { input: { ...rest, providerId: undefined, virtualMachineTemplateId: bindingId } },
    );
    expect(published.errors).toBeUndefined();
    expectNothingSecretSaid();
  });

  it('in every network mutation', async () => {
    const network = await op(
      'network mutations',
      `mutation {
        createIpSet(input: { name: "secret-scan", addresses: ["10.9.9.9"] }) { id }
        updateIpSet(id: "ipset-4", input: { name: "secret-scan-4", addresses: ["10.9.9.8"] }) { id }
        createService(input: { name: "secret-scan", protocol: "TCP", ports: "8443" }) { id }
        updateService(id: "application-401", input: { name: "secret-scan-401", protocol: "UDP", ports: "53" }) { id }
        addVirtualServer(edgeId: "edge-1", input: { name: "vs-secret", ipAddress: "10.9.9.7", protocol: "HTTPS", port: "443" }) { id }
        forceSyncEdge(edgeId: "edge-1") { accepted }
        addApplicationFirewallRule(portGroupId: "dvportgroup-63", rule: { action: "allow", notes: "secret-scan" }) { generationNumber }
        removeApplicationFirewallRule(portGroupId: "dvportgroup-63", ruleId: "1003") { generationNumber }
        updateApplicationFirewall(portGroupId: "datacenter-2", rules: [{ action: "deny" }]) { generationNumber }
        deleteService(id: "application-410") { deleted }
        deleteIpSet(id: "ipset-7") { deleted }
      }`,
    );
    expect(network.errors).toBeUndefined();
    expectNothingSecretSaid();
  });

  it("when the upstreams refuse the user's own credentials, or the header is malformed", async () => {
    const refusedUser = await op('user credentials the upstreams refuse', everything, {}, asUsers);
    expect(codes(refusedUser)).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED', 'UNAUTHENTICATED']);
    await op(
      'user credentials on mutations',
      `mutation { runWorkflow(workflowId: "${echo}") { execution { id } } }`,
      {},
      asUsers,
    );
    await subscribe('subscription with refused user credentials', executionId, asUsers);
    await upload('importPackage with refused user credentials', samplePackage, asUsers);
    const badHeader = await op(
      'a malformed credential header',
      '{ ipSets { id } }',
      {},
      { 'x-nsx-authorization': `Token ${secret.userNsxPassword}` },
    );
    expect(codes(badHeader)).toEqual(['BAD_USER_INPUT']);
    expectNothingSecretSaid();
  });

  it('when the gateway token is missing, wrong or sent as Basic', async () => {
    await op('no gateway token', '{ ipSets { id } }', {}, { authorization: '' });
    await op(
      'a wrong gateway token',
      '{ ipSets { id } }',
      {},
      { authorization: `Bearer ${secret.gatewayToken}x` },
    );
    await op(
      'a Basic gateway credential',
      '{ ipSets { id } }',
      {},
      { authorization: `Basic ${basic('admin', secret.gatewayToken)}` },
    );
    expectNothingSecretSaid();
  });

  it('when the vRA token is renewed after it expired', async () => {
    const before = stack.vra.issuedTokens().length;
    stack.vra.expireAllTokens();
    const renewed = await op(
      'providers after the vRA token expired',
      '{ providers(first: 1) { totalCount } }',
    );
    expect(renewed.errors).toBeUndefined();
    expect(stack.vra.issuedTokens().length).toBe(before + 1);
    expectNothingSecretSaid();
  });

  it('when the upstreams time out or answer broken bodies', async () => {
    for (const sim of [stack.vro, stack.vra, stack.nsx])
      sim.faults.inject({ fault: { kind: 'delay', ms: 60_000 } });
    const timedOut = await op('timeouts', everything);
    expect(codes(timedOut)).toEqual(['UPSTREAM_TIMEOUT', 'UPSTREAM_TIMEOUT', 'UPSTREAM_TIMEOUT']);
    for (const kind of ['malformed', 'truncated', 'reset', 'reset-mid-body'] as const) {
      for (const sim of [stack.vro, stack.vra, stack.nsx]) {
        sim.faults.clear();
        sim.faults.inject({ fault: { kind }, method: 'GET' });
      }
      const failed = await op(`${kind} answers`, everything);
      expect(failed.errors).toHaveLength(3);
    }
    for (const sim of [stack.vro, stack.vra, stack.nsx]) sim.faults.clear();
    expectNothingSecretSaid();
  });

  it('when error bodies repeat the credentials sent and the upstream addresses', async () => {
    const [vraToken] = stack.vra.issuedTokens().slice(-1);
    const reflected = {
      vro: `Unauthorized request to ${stack.vro.url.href}/workflows with Authorization: Basic ${basic(stack.vro.username, secret.vroPassword)} (password ${secret.vroPassword})`,
      vra: `Token ${String(vraToken)} rejected by ${stack.vra.url.origin}; Authorization: Bearer ${String(vraToken)}`,
      nsx: `Request from ${stack.nsx.username}:${secret.nsxPassword} at ${stack.nsx.url.host} failed`,
    };
    stack.vro.faults.inject({
      fault: { kind: 'status', status: 500, body: reflected.vro, contentType: 'text/plain' },
    });
    stack.vra.faults.inject({
      fault: {
        kind: 'status',
        status: 500,
        body: JSON.stringify({ errors: [{ code: 10101, message: reflected.vra }] }),
        contentType: 'application/json',
      },
    });
    stack.nsx.faults.inject({
      fault: {
        kind: 'status',
        status: 500,
        body: `<error><details>${reflected.nsx}</details><errorCode>100</errorCode></error>`,
        contentType: 'application/xml',
      },
    });
    try {
      const echoed = await op('500 answers that repeat credentials', everything);
      expect(codes(echoed)).toEqual(['UPSTREAM_ERROR', 'UPSTREAM_ERROR', 'UPSTREAM_ERROR']);
    } finally {
      for (const sim of [stack.vro, stack.vra, stack.nsx]) sim.faults.clear();
    }
    expectNothingSecretSaid();
  });

  it('when the token refusal repeats the password', async () => {
    stack.vra.faults.inject({
      fault: {
        kind: 'status',
        status: 401,
        body: JSON.stringify({
          errors: [
            {
              code: 90135,
              message: `Wrong password ${secret.vraPassword} for ${stack.vra.username}`,
            },
          ],
        }),
        contentType: 'application/json',
      },
      path: /tokens$/,
    });
    stack.vra.expireAllTokens();
    try {
      const refusedToken = await op(
        'a token refusal that repeats the password',
        '{ providers(first: 1) { totalCount } }',
      );
      expect(codes(refusedToken)).toEqual(['UNAUTHENTICATED']);
    } finally {
      stack.vra.faults.clear();
    }
    expectNothingSecretSaid();
  });

  it('in conflicts and bad input', async () => {
    stack.vro.putWorkflow({
      id: '3f92d2dc-a9fa-4323-900b-ef97196184ea',
      name: 'Test01',
      version: '9.0.0',
      category: 'Test',
      inputs: [],
      outputs: [],
    });
    const conflict = await upload('importPackage of an older version', samplePackage, {});
    expect(codes(conflict)).toEqual(['CONFLICT']);
    const stale = await op(
      'a stale generation number',
      'mutation { updateApplicationFirewall(portGroupId: "dvportgroup-63", rules: [], generationNumber: "1") { generationNumber } }',
    );
    expect(codes(stale)).toEqual(['CONFLICT']);
    const bad = await op(
      'bad input',
      `mutation { runWorkflow(workflowId: "../${secret.vroPassword}", inputs: [{ name: "count", type: "number", value: "x" }]) { execution { id } } }`,
    );
    expect(codes(bad)).toEqual(['BAD_USER_INPUT']);
    await op('a document that does not parse', '{ workflows(');
    await op('a document that does not validate', '{ nothing }');
    expectNothingSecretSaid();
  });

  it('when the service passwords are wrong', async () => {
    const refused = await op('wrong service passwords', everything, {}, {}, wrongService);
    expect(codes(refused)).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED', 'UNAUTHENTICATED']);
    await op(
      'a mutation with wrong service passwords',
      'mutation { createIpSet(input: { name: "x", addresses: ["10.0.0.1"] }) { id } }',
      {},
      {},
      wrongService,
    );
    expectNothingSecretSaid();
  });

  it('on health, readiness, metrics and GraphiQL', async () => {
    for (const path of ['/health', '/ready', '/metrics'])
      await record(path, await stack.fetch(path));
    await record('GraphiQL', await stack.fetch('/graphql', { headers: { accept: 'text/html' } }));
    expectNothingSecretSaid();
  });

  it('and logged every request of the session', () => {
    expect(logLines.length).toBeGreaterThan(exchanges.length / 2);
  });
});

/** A subscription over SSE, read to its end (the run completes within a few polls). */
async function subscribe(label: string, executionId: string, headers: Record<string, string>) {
  const response = await stack.fetch('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${secret.gatewayToken}`,
      ...headers,
    },
    body: JSON.stringify({
      query: `subscription { workflowExecution(workflowId: "${echo}", executionId: "${executionId}") { id state } }`,
    }),
  });
  const body = await record(label, response);
  expect(body).toMatch(/event: (next|complete)/);
}

/** importPackage with the GraphQL multipart request spec. */
async function upload(
  label: string,
  bytes: typeof samplePackage,
  headers: Record<string, string>,
): Promise<Answer> {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query: 'mutation ($file: File!) { importPackage(file: $file) { imported packageName } }',
      variables: { file: null },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new File([bytes], 'net.powervro.tests.package'));
  const response = await stack.fetch('/graphql', {
    method: 'POST',
    headers: { authorization: `Bearer ${secret.gatewayToken}`, ...headers },
    body: form,
  });
  return JSON.parse(await record(label, response)) as Answer;
}
