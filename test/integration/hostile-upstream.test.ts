import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractCodes } from '../helpers/contract-codes.ts';
import { readExamples, type Example } from '../helpers/examples.ts';
import {
  abuseKinds,
  accentedText,
  startHostileUpstreams,
  type HostileUpstreams,
  type Service,
} from '../helpers/hostile-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { SseSubscription } from '../helpers/sse.ts';
import { sleep } from '../helpers/wait.ts';

/** HOSTILE_SEED=<n> replays a run. */
const seed = Number(process.env['HOSTILE_SEED'] ?? 20261125);
const examples = readExamples();
const samplePackage = readFileSync(new URL('../fixtures/vro/sample.package', import.meta.url));
const executionId = 'ff8080814a1cb55c014a6481a9927a78';
const services: readonly Service[] = ['vro', 'vra', 'nsx'];

interface Payload {
  data?: Record<string, unknown> | null;
  errors?: Array<{
    message: string;
    path?: Array<string | number>;
    extensions?: { code?: unknown };
  }>;
}

/** One HTTP answer of the gateway: its status and every GraphQL payload it carried. */
interface Answered {
  what: string;
  status: number;
  payloads: Payload[];
}

let hostile: HostileUpstreams;
let gateway: SpawnedGateway;
let base: string;
const healthFailures: string[] = [];
let healthChecks = 0;
let polling = true;
let healthLoop: Promise<void> | undefined;

beforeAll(async () => {
  hostile = await startHostileUpstreams(seed);
  gateway = spawnGateway({
    PORT: '0',
    LOG_LEVEL: 'info',
    UPSTREAM_RETRIES: '0',
    UPSTREAM_TIMEOUT_MS: '20000',
    CIRCUIT_FAILURE_THRESHOLD: '10000',
    ...hostile.env,
  });
  base = `http://127.0.0.1:${await gateway.port()}`;
  healthLoop = (async () => {
    while (polling) {
      try {
        const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5000) });
        if (response.status !== 200) healthFailures.push(`status ${response.status}`);
      } catch (error) {
        healthFailures.push(String(error));
      }
      healthChecks += 1;
      await sleep(50);
    }
  })();
}, 60_000);

afterAll(async () => {
  polling = false;
  await healthLoop;
  gateway.kill();
  await hostile.close();
});

async function post(body: BodyInit, headers: Record<string, string>): Promise<Response> {
  return fetch(`${base}/graphql`, { method: 'POST', body, headers });
}

/** The JSON parts of a `multipart/mixed` answer (incremental delivery). */
function multipartPayloads(text: string): Payload[] {
  return text
    .split('\r\n---')
    .map((part) => part.slice(part.indexOf('\r\n\r\n') + 4).trim())
    .filter((part) => part.startsWith('{'))
    .map((part) => JSON.parse(part) as Payload);
}

/** Every `next` payload of a subscription over SSE, which must end with `complete`. */
async function subscribe(document: string, variables: Example['variables'], what: string) {
  const subscription = await SseSubscription.open(base, document, variables ?? {});
  const payloads: Payload[] = [];
  let completed = false;
  for (let event = await subscription.next(); event !== null; event = await subscription.next()) {
    if (event.event === 'next') payloads.push(event.data as Payload);
    if (event.event === 'complete') completed = true;
  }
  expect(completed, what).toBe(true);
  return { what, status: subscription.status, payloads };
}

/** Runs an example the way a client would (upload, SSE, or JSON) and collects what came back. */
async function run(example: Example, accept = 'application/json'): Promise<Answered> {
  let variables = example.variables;
  if (variables !== undefined && 'executionId' in variables)
    variables = { ...variables, executionId };
  const subscription = example.operationType === 'subscription';
  const what = `${example.name} (${subscription ? 'text/event-stream' : accept})`;
  if (subscription) return subscribe(example.document, variables, what);
  let response: Response;
  if (example.name === 'import-package') {
    const form = new FormData();
    form.append('operations', JSON.stringify({ query: example.document, variables }));
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new File([samplePackage], 'sample.package'));
    response = await post(form, { 'x-graphql-csrf': '1' });
  } else {
    response = await post(JSON.stringify({ query: example.document, variables }), {
      'content-type': 'application/json',
      accept,
    });
  }
  const text = await response.text();
  const payloads = (response.headers.get('content-type') ?? '').startsWith('multipart/mixed')
    ? multipartPayloads(text)
    : [JSON.parse(text) as Payload];
  return { what, status: response.status, payloads };
}

/** No 500, and every error carries a contract code (never INTERNAL_SERVER_ERROR). */
function expectWithinContract(answered: Answered, context: string): void {
  expect(answered.status, `${context}: ${answered.what}`).toBeLessThan(500);
  expect(answered.payloads.length, `${context}: ${answered.what}`).toBeGreaterThan(0);
  for (const payload of answered.payloads) {
    for (const error of payload.errors ?? []) {
      const code = String(error.extensions?.code);
      expect(
        contractCodes.has(code),
        `${context}: ${answered.what}: ${code} ${error.message}`,
      ).toBe(true);
    }
  }
}

/** One query over the three upstreams, JSON fields included; each root field's upstream. */
const everything = `query Everything($executionId: ID!) {
  workflows(first: 2) { totalCount nodes { id name version } }
  workflowExecution(workflowId: "6e04a460-4a45-4e16-9603-db2922c24462", executionId: $executionId) {
    id state startDate inputParameters { name value } outputParameters { name value }
  }
  providers(first: 2) { totalCount nodes { id name } }
  catalogItems(first: 2) { totalCount nodes { name description provider { name } } }
  ipSets { id name addresses }
  services { id name protocol ports }
  applicationFirewall(portGroupId: "dvportgroup-63") {
    generationNumber rules { id action notes source destination service }
  }
}`;
const rootService: Readonly<Record<string, Service>> = {
  workflows: 'vro',
  workflowExecution: 'vro',
  providers: 'vra',
  catalogItems: 'vra',
  ipSets: 'nsx',
  services: 'nsx',
  applicationFirewall: 'nsx',
};

async function runEverything(accept: string): Promise<Answered> {
  return run(
    {
      name: 'everything',
      document: everything,
      operationName: 'Everything',
      operationType: 'query',
      variables: { executionId },
    },
    accept,
  );
}

describe(`hostile upstreams (seed ${seed}; HOSTILE_SEED replays)`, () => {
  it.each(abuseKinds)(
    '%s in the answers of each upstream: every example is answered within the contract, other upstreams still resolve, /health answers and the process lives',
    async (kind) => {
      for (const service of services) {
        hostile.attack({ service, kind });
        const context = `${kind} from ${service}`;
        const callsBefore = hostile[service].requests.length;
        const answers: Answered[] = [];
        for (const example of examples) answers.push(await run(example));

        for (const accept of ['application/json', 'multipart/mixed']) {
          const answered = await runEverything(accept);
          answers.push(answered);
          const [payload] = answered.payloads;
          for (const [field, owner] of Object.entries(rootService)) {
            if (owner !== service) {
              expect(payload?.data?.[field], `${context}: ${field}`).not.toBeNull();
            }
          }
          for (const error of payload?.errors ?? []) {
            expect(rootService[String(error.path?.[0])], `${context}: ${error.message}`).toBe(
              service,
            );
          }
        }
        for (const answered of answers) expectWithinContract(answered, context);
        // The abuse reached the gateway, and did what it must.
        expect(hostile[service].requests.length - callsBefore, context).toBeGreaterThan(5);
        const messages = answers.flatMap((a) =>
          a.payloads.flatMap((p) => (p.errors ?? []).map((e) => e.message)),
        );
        if (kind === 'invalid-utf8') {
          expect(
            messages.some((m) => m.includes('not valid UTF-8')),
            context,
          ).toBe(true);
        }
        if (kind === 'deep' || kind === 'not-the-format' || kind === 'truncated') {
          expect(messages.length, context).toBeGreaterThan(0);
        }
        if (kind === 'latin1' || kind === 'utf16') {
          // Honest answers in another charset: read right, so never refused as text.
          const misread = messages.filter((m) =>
            /not JSON|not well-formed|not valid|character set/.test(m),
          );
          expect(misread, context).toEqual([]);
        }
      }
      hostile.attack(undefined);
      expect(healthFailures).toEqual([]);
      expect(healthChecks).toBeGreaterThan(0);
      expect(gateway.child.exitCode).toBeNull();
    },
    240_000,
  );

  it('a value nested 6,000 levels deep fails only its field with UPSTREAM_BAD_RESPONSE, over JSON, SSE and incremental delivery', async () => {
    const deep = '{"mystery":' + '['.repeat(6000) + ']'.repeat(6000) + '}';
    hostile.override('vro', (request) =>
      request.path.includes('/executions/')
        ? {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: `{"id":"${executionId}","state":"completed","input-parameters":[],"output-parameters":[{"name":"deep","type":"Any","value":${deep}},{"name":"fine","type":"string","value":{"string":{"value":"ok"}}}]}`,
          }
        : undefined,
    );
    try {
      const follow = examples.find((e) => e.name === 'follow-workflow-run');
      const read = examples.find((e) => e.name === 'workflow-run');
      expect(follow && read).toBeTruthy();
      for (const answered of [
        await run(read!),
        await run(read!, 'multipart/mixed'),
        await run(follow!),
      ]) {
        const payload = answered.payloads.at(-1);
        const execution = payload?.data?.['workflowExecution'] as {
          state: string;
          outputParameters: Array<{ name: string; value: unknown }>;
        };
        expect(execution.state, answered.what).toBe('COMPLETED');
        expect(execution.outputParameters, answered.what).toMatchObject([
          { name: 'deep', value: null },
          { name: 'fine', value: 'ok' },
        ]);
        expect(payload?.errors, answered.what).toEqual([
          expect.objectContaining({
            path: ['workflowExecution', 'outputParameters', 0, 'value'],
            extensions: expect.objectContaining({
              code: 'UPSTREAM_BAD_RESPONSE',
              upstream: expect.objectContaining({ service: 'vro' }),
            }),
          }),
        ]);
      }
      expect(gateway.child.exitCode).toBeNull();
    } finally {
      hostile.override('vro', undefined);
    }
  });
});

describe('a firewall rule part nested past the JSON bounds', () => {
  it('fails only that part with UPSTREAM_BAD_RESPONSE of NSX; the rule and its other parts resolve', async () => {
    const deep = '<a>'.repeat(80) + '</a>'.repeat(80);
    hostile.override('nsx', (request) =>
      request.method === 'GET' && request.path.includes('/app/firewall/')
        ? {
            status: 200,
            headers: { 'content-type': 'application/xml', etag: '"7"' },
            body: `<VshieldAppConfiguration><firewallConfiguration contextId="dvportgroup-63"><layer3FirewallRule disabled="false" precedence="default" id="1001"><action>allow</action><logged>false</logged><source>${deep}</source><destination><address><containerId>ipset-3</containerId></address></destination></layer3FirewallRule></firewallConfiguration></VshieldAppConfiguration>`,
          }
        : undefined,
    );
    try {
      const response = await post(
        JSON.stringify({
          query:
            '{ applicationFirewall(portGroupId: "dvportgroup-63") { rules { id action source destination } } }',
        }),
        { 'content-type': 'application/json' },
      );
      const answer = (await response.json()) as Payload;
      expect(answer.data).toEqual({
        applicationFirewall: {
          rules: [
            {
              id: '1001',
              action: 'allow',
              source: null,
              destination: { address: { containerId: 'ipset-3' } },
            },
          ],
        },
      });
      expect(answer.errors).toEqual([
        expect.objectContaining({
          message:
            'The network manager (NSX) sent an unexpected answer: a JSON value nested deeper than 64 levels.',
          path: ['applicationFirewall', 'rules', 0, 'source'],
          extensions: expect.objectContaining({ code: 'UPSTREAM_BAD_RESPONSE' }),
        }),
      ]);
    } finally {
      hostile.override('nsx', undefined);
    }
  });
});

describe('answers in a declared non-UTF-8 charset', () => {
  const firewallIn1252 = (notes: string): Buffer =>
    Buffer.from(
      `<?xml version="1.0" encoding="windows-1252"?><VshieldAppConfiguration><firewallConfiguration contextId="dvportgroup-63"><layer3FirewallRule disabled="false" precedence="default" id="1001"><action>allow</action><logged>false</logged><notes>${notes}</notes></layer3FirewallRule></firewallConfiguration></VshieldAppConfiguration>`,
      'latin1',
    );

  it('reads a firewall declared windows-1252 by its XML declaration, and writes it back in UTF-8 unchanged', async () => {
    const posts = () => hostile.nsx.requests.filter((r) => r.method === 'POST');
    const before = posts().length;
    hostile.override('nsx', (request) =>
      request.method === 'GET' && request.path.includes('/app/firewall/')
        ? {
            status: 200,
            headers: { 'content-type': 'application/xml', etag: '"7"' },
            body: firewallIn1252(accentedText),
          }
        : undefined,
    );
    try {
      const read = await run(examples.find((e) => e.name === 'application-firewall')!);
      expect(read.payloads[0]?.errors).toBeUndefined();
      expect(JSON.stringify(read.payloads[0]?.data)).toContain(accentedText);

      const add = await run(examples.find((e) => e.name === 'add-firewall-rule')!);
      expect(add.payloads[0]?.errors).toBeUndefined();
      const written = posts().slice(before);
      expect(written).toHaveLength(1);
      const body = written[0]!.body;
      expect(written[0]!.headers['content-type']).toMatch(/charset=utf-8/i);
      expect(body.toString('utf8')).toContain(`<notes>${accentedText}</notes>`);
      expect(body.toString('utf8')).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
    } finally {
      hostile.override('nsx', undefined);
    }
  });

  it('refuses a firewall that is not valid in its declared charset with UPSTREAM_BAD_RESPONSE, writing nothing', async () => {
    const before = hostile.nsx.requests.filter((r) => r.method === 'POST').length;
    hostile.override('nsx', (request) =>
      request.method === 'GET' && request.path.includes('/app/firewall/')
        ? {
            status: 200,
            headers: { 'content-type': 'application/xml; charset=utf-8', etag: '"7"' },
            // Windows-1252 bytes in a body declared UTF-8 by its Content-Type (which wins over the XML declaration).
            body: firewallIn1252(accentedText),
          }
        : undefined,
    );
    try {
      const add = await run(examples.find((e) => e.name === 'add-firewall-rule')!);
      expect(add.payloads[0]?.errors?.map((e) => e.extensions?.code)).toEqual([
        'UPSTREAM_BAD_RESPONSE',
      ]);
      expect(hostile.nsx.requests.filter((r) => r.method === 'POST').length).toBe(before);
    } finally {
      hostile.override('nsx', undefined);
    }
  });

  it.each([
    ['a Location', { location: '/api/2.0/services/ipset/..%2F..%2Fedges' }, ''],
    ['a body', {}, 'ipset-1/../../edges'],
  ])(
    'refuses a created IP set whose id in %s is not an NSX id with UPSTREAM_BAD_RESPONSE, reading nothing by it',
    async (_where, headers, body) => {
      const reads = () => hostile.nsx.requests.filter((r) => r.method === 'GET').length;
      hostile.override('nsx', (request) =>
        request.method === 'POST' && request.path.startsWith('/api/2.0/services/ipset/')
          ? { status: 201, headers: { 'content-type': 'text/plain', ...headers }, body }
          : undefined,
      );
      try {
        const before = reads();
        const create = await run(examples.find((e) => e.name === 'create-ip-set')!);
        expect(create.payloads[0]?.errors?.[0]).toMatchObject({
          message: expect.stringContaining('an id that is not an NSX id') as unknown,
          extensions: { code: 'UPSTREAM_BAD_RESPONSE', upstream: { service: 'nsx' } },
        });
        expect(reads()).toBe(before);
      } finally {
        hostile.override('nsx', undefined);
      }
    },
  );
});
