/**
 * Property-based checks of bad input (issue 5, point 6): hostile values for
 * every argument, and what must hold whatever they are: no 500, a GraphQL
 * answer, contract codes only, a gateway that still serves, and nothing
 * unescaped reaching an upstream.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { readXml, type SimElement } from '../../simulators/nsx/v/sim-xml.ts';
import type { RecordedRequest } from '../../simulators/sim-server.ts';
import type { Stack } from './stack.ts';
import { contractCodes } from './contract-codes.ts';

/** Runs per property: enough to meet every kind of hostile value, few enough for a fast suite. */
export const runs = 40;

/**
 * fast-check's own report (seed and shrunk counterexample) is what a failure
 * shows. `examples` run first, every time, before the random values.
 */
export async function check<T>(
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  numRuns = runs,
  examples: readonly T[] = [],
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arbitrary, async (value) => {
      await predicate(value);
    }),
    { numRuns, endOnFailure: true, examples: examples.map((value): [T] => [value]) },
  );
}

/**
 * Property checks that insist some runs reached the upstream (each such run
 * calls `hit`): a property never exercised there proves nothing. Where random
 * values rarely get through, pass valid `examples`: they run first, so that
 * the count does not hang on the seed.
 */
export function reachingChecks(what: string) {
  let reached = 0;
  return {
    hit: (): void => {
      reached += 1;
    },
    check: async <T>(
      arbitrary: fc.Arbitrary<T>,
      predicate: (value: T) => Promise<void>,
      ...examples: T[]
    ): Promise<void> => {
      reached = 0;
      await check(arbitrary, predicate, runs, examples);
      expect(reached, what).toBeGreaterThan(0);
    },
  };
}

/** Characters and sequences that break XML, URLs, conditions, JSON or logs when not escaped. */
export const nasty: readonly string[] = [
  '<',
  '>',
  '&',
  '"',
  "'",
  ']]>',
  '<![CDATA[x]]>',
  '<!DOCTYPE x [<!ENTITY e "boom">]>',
  '<!ENTITY e SYSTEM "file:///etc/passwd">',
  '&e;',
  '&amp;',
  '&#0;',
  '&#x1F;',
  '</name><evil/>',
  '<?xml version="1.0"?>',
  '\u0000',
  '\u0001',
  '\u0008',
  '\u000b',
  '\u001f',
  '\u007f',
  '\r\n',
  '\r',
  '\t',
  'é',
  'ß',
  '日本語',
  '😀',
  '\u202e',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\ud800',
  '\udc00',
  '../',
  '..',
  '.',
  '..%2F',
  '%2F',
  '%2e%2e',
  '%00',
  '%',
  '/',
  '\\',
  '?',
  '#',
  '?x=1&y=2',
  '#frag',
  ',',
  '=',
  '~',
  ';',
  ' ',
  '+',
  '$filter',
  '{',
  '}',
  'null',
  '__proto__',
  'constructor',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${x}',
  '\n',
];

const word = fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/);

const piece = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...nasty) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  { weight: 2, arbitrary: word },
);

/** A hostile string: nasty pieces among plain ones, random code points, graphemes, or a very long run. */
export const hostile: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => p.join('')) },
  { weight: 2, arbitrary: fc.constantFrom(...nasty) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constant('') },
  {
    weight: 1,
    arbitrary: fc
      .tuple(piece, fc.integer({ min: 300, max: 20_000 }))
      .map(([p, n]) =>
        (p === '' ? 'x' : p).repeat(Math.ceil(n / Math.max(1, p.length))).slice(0, n),
      ),
  },
);

/** The value or null. */
export const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.option(arbitrary, { nil: null });

/** Mostly valid, so that most runs reach the upstream with the hostile values beside them. */
export const usually = <T>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: other });

/** An id: a hostile string, or one shaped like the upstream's ids (so some calls go through). */
export function idLike(...valid: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: hostile },
    { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,20}$/) },
    ...(valid.length === 0 ? [] : [{ weight: 3, arbitrary: fc.constantFrom(...valid) }]),
  );
}

/** Any JSON value, nested structures and hostile strings included. */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: hostile },
  { weight: 1, arbitrary: fc.dictionary(hostile, hostile, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 300 }).map(deeplyNested) },
);

/** `[[[...]]]` or `{"a":{"a":...}}` `depth` levels deep. */
export function deeplyNested(depth: number): unknown {
  let value: unknown = depth % 2 === 0 ? 'leaf' : 1;
  for (let i = 0; i < depth; i += 1) value = i % 3 === 0 ? { a: value } : [value];
  return value;
}

/** An Int argument: in range, at the edges, or not an Int at all (variables carry any JSON). */
export const anyInt: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -5, max: 6000 }) },
  { weight: 2, arbitrary: fc.integer() },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      0,
      -1,
      2 ** 31 - 1,
      -(2 ** 31),
      2 ** 31,
      2 ** 53,
      1.5,
      -0,
      1e308,
      '1',
      null,
      true,
      [],
      {},
    ),
  },
);

/** A cursor: a random string, base64 of random text, or base64 of something cursor-like. */
export const anyCursor: fc.Arbitrary<string | null> = fc.oneof(
  fc.constant(null),
  hostile,
  hostile.map((s) => Buffer.from(s).toString('base64')),
  fc
    .tuple(
      fc.constantFrom('offset:', 'providers:', 'catalogItems:', 'x:'),
      fc.oneof(fc.integer({ min: -10, max: 2 ** 40 }).map(String), hostile),
      fc.constantFrom('base64', 'base64url') as fc.Arbitrary<BufferEncoding>,
    )
    .map(([kind, n, encoding]) => Buffer.from(`${kind}${n}`).toString(encoding)),
);

export interface RawAnswer {
  status: number;
  body: { data?: Record<string, unknown> | null; errors?: AnswerError[] };
}

export interface AnswerError {
  message: string;
  path?: Array<string | number>;
  extensions?: Record<string, unknown>;
}

/** Sends an operation and checks the answer's shape: no 500, JSON, contract codes only. */
export async function send(
  stack: Stack,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const response = await stack.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return checkAnswer(response);
}

/**
 * Codes that say an upstream failed to answer properly. The simulators behind
 * these tests are healthy (no fault is switched on), so any of these is the
 * gateway blaming an upstream for its own problem.
 */
const unhealthyCodes = new Set([
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_BAD_RESPONSE',
]);

/** The answer of any operation, checked for the properties every answer must have. */
export async function checkAnswer(response: Response): Promise<RawAnswer> {
  const text = await response.text();
  expect(response.status, text.slice(0, 500)).not.toBe(500);
  expect(response.status, text.slice(0, 500)).toBeLessThan(500);
  let body: RawAnswer['body'];
  try {
    body = JSON.parse(text) as RawAnswer['body'];
  } catch {
    throw new Error(`the gateway answered ${response.status} with a body that is not JSON`);
  }
  expect(typeof body).toBe('object');
  expect('data' in body || 'errors' in body, text.slice(0, 300)).toBe(true);
  for (const error of body.errors ?? []) {
    expect(typeof error.message).toBe('string');
    const code = error.extensions?.['code'];
    expect(contractCodes.has(String(code)), `${String(code)}: ${error.message}`).toBe(true);
    expect(unhealthyCodes.has(String(code)), `${String(code)}: ${error.message}`).toBe(false);
  }
  return { status: response.status, body };
}

/** The error codes of an answer. */
export const codesOf = (answer: RawAnswer): string[] =>
  (answer.body.errors ?? []).map((e) => String(e.extensions?.['code']));

/**
 * An input the gateway refused itself (BAD_USER_INPUT without
 * `extensions.upstream`): nothing may have been sent for it. An appliance's
 * refusal of the caller's input is BAD_USER_INPUT too, with the upstream's detail.
 */
export const isGatewayRefusal = (error: AnswerError): boolean =>
  error.extensions?.['code'] === 'BAD_USER_INPUT' && error.extensions['upstream'] === undefined;

/** Some error of the answer is an input the gateway refused itself. */
export const refusedByGateway = (answer: RawAnswer): boolean =>
  (answer.body.errors ?? []).some(isGatewayRefusal);

/** The gateway still answers a trivial query. */
export async function expectServing(stack: Stack): Promise<void> {
  const answer = await send(stack, '{ __typename }');
  expect(answer.body.data).toEqual({ __typename: 'Query' });
}

type Upstream = 'vro' | 'vra' | 'nsx';

/**
 * The paths each upstream may be sent (below its root), `{}` a variable
 * segment, and the query parameters it may get.
 */
const routes: Record<Upstream, { prefix: string; paths: string[]; query: string[] }> = {
  vro: {
    prefix: '/vco/api',
    paths: [
      '/workflows',
      '/workflows/{}/',
      '/workflows/{}/executions/',
      '/workflows/{}/executions/{}/',
      '/workflows/{}/executions/{}/state',
      '/workflows/{}/executions/{}/logs/',
      '/workflows/{}/presentation/',
      '/packages',
    ],
    query: [
      'conditions',
      'maxResult',
      'startIndex',
      'overwrite',
      'importConfigurationAttributeValues',
      'tagImportMode',
    ],
  },
  vra: {
    prefix: '',
    paths: [
      '/identity/api/tokens',
      '/catalog-service/api/providers',
      '/catalog-service/api/providers/{}',
      '/catalog-service/api/catalogItems',
      '/catalog-service/api/provider/providers/{}/catalogItems/{}',
      '/catalog-service/api/consumer/entitledCatalogItemViews',
      '/catalog-service/api/consumer/entitledCatalogItems/{}/requests/template',
      '/catalog-service/api/consumer/entitledCatalogItems/{}/requests',
      '/catalog-service/api/consumer/requests',
      '/catalog-service/api/consumer/requests/{}',
      '/catalog-service/api/consumer/requests/{}/resources',
      '/catalog-service/api/consumer/resources/{}',
      '/catalog-service/api/consumer/resources/{}/actions/{}/requests/template',
      '/catalog-service/api/consumer/resources/{}/actions/{}/requests',
    ],
    query: ['page', 'limit', '$filter', '$orderby'],
  },
  nsx: {
    prefix: '',
    paths: [
      '/api/2.0/services/ipset/scope/{}',
      '/api/2.0/services/ipset/{}',
      '/api/2.0/services/application/scope/{}',
      '/api/2.0/services/application/{}',
      '/api/{}/edges/{}/loadbalancer/config/virtualservers',
      '/api/{}/edges/{}',
      '/api/2.0/app/firewall/{}/config',
      '/api/{}/edges',
      '/api/{}/edges/{}/summary',
      '/api/{}/edges/{}/loadbalancer/config/virtualservers/{}',
      '/api/4.0/firewall/globalroot-0/config',
      '/api/4.0/firewall/globalroot-0/config/layer3sections/{}',
      '/api/4.0/firewall/globalroot-0/config/layer2sections/{}',
      '/api/4.0/firewall/globalroot-0/config/layer3sections/{}/rules',
      '/api/4.0/firewall/globalroot-0/config/layer2sections/{}/rules',
      '/api/4.0/firewall/globalroot-0/config/layer3sections/{}/rules/{}',
      '/api/4.0/firewall/globalroot-0/config/layer2sections/{}/rules/{}',
    ],
    query: ['force', 'action', 'startIndex', 'pageSize'],
  },
};

/** Where each simulator's request log stood. */
export type Marks = Record<Upstream, number>;

export function mark(stack: Stack): Marks {
  return {
    vro: stack.vro.requests.length,
    vra: stack.vra.requests.length,
    nsx: stack.nsx.requests.length,
  };
}

/** The requests each simulator received since `marks`. */
export function since(stack: Stack, marks: Marks): Record<Upstream, RecordedRequest[]> {
  return {
    vro: stack.vro.requests.slice(marks.vro),
    vra: stack.vra.requests.slice(marks.vra),
    nsx: stack.nsx.requests.slice(marks.nsx),
  };
}

/** A raw segment that is exactly its value percent-encoded, and no dot segment. */
function isEncodedSegment(raw: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return false;
  }
  return raw !== '' && encodeURIComponent(decoded) === raw && decoded !== '.' && decoded !== '..';
}

/** True when the raw path is one of the upstream's routes with each variable segment properly encoded. */
export function isKnownRoute(upstream: Upstream, rawPath: string): boolean {
  const { prefix, paths } = routes[upstream];
  if (!rawPath.startsWith(prefix)) return false;
  const segments = rawPath.slice(prefix.length).split('/');
  return paths.some((template) => {
    const parts = template.split('/');
    if (parts.length !== segments.length) return false;
    return parts.every((part, i) => {
      const segment = segments[i] ?? '';
      return part === '{}' ? isEncodedSegment(segment) : part === segment;
    });
  });
}

/**
 * Everything the simulators received since `marks` went where the gateway
 * means to send it: a known route, every variable segment percent-encoded,
 * known query parameters only, JSON bodies that parse, XML bodies that the
 * NSX simulator's own reader accepts.
 */
export function expectSafeUpstreamRequests(stack: Stack, marks: Marks): void {
  const received = since(stack, marks);
  for (const upstream of ['vro', 'vra', 'nsx'] as const) {
    for (const request of received[upstream]) {
      const where = `${upstream} ${request.method} ${request.rawPath}`;
      expect(isKnownRoute(upstream, request.rawPath), where).toBe(true);
      for (const name of request.query.keys()) {
        expect(routes[upstream].query, `${where} ?${name}`).toContain(name);
      }
      if (request.body.length === 0) continue;
      const type = request.headers['content-type'] ?? '';
      if (upstream === 'nsx') {
        expect(type, where).toMatch(/^(application|text)\/xml; charset=utf-8$/);
        expect(() => readXml(request.body.toString('utf8')), where).not.toThrow();
      } else if (type.startsWith('application/json')) {
        expect(() => JSON.parse(request.body.toString('utf8')) as unknown, where).not.toThrow();
      } else {
        expect(type, where).toMatch(/^multipart\/form-data; boundary=/);
      }
    }
  }
}

/** Every element's own text in a document, in document order. */
export function textsOf(node: SimElement): string[] {
  const own = node.kids.filter((k): k is string => typeof k === 'string').join('');
  return [
    own,
    ...node.kids.flatMap((k) => (typeof k === 'string' ? [] : textsOf(k))),
    ...node.attrs.map(([, v]) => v),
  ];
}

/**
 * The NSX bodies written since `marks` carry `value` only as text: an element
 * whose text is exactly `value` exists (the structure around it is intact).
 */
export function expectNsxTextIntact(stack: Stack, marks: Marks, value: string): void {
  const writes = since(stack, marks).nsx.filter((r) => r.body.length > 0);
  for (const request of writes) {
    const root = readXml(request.body.toString('utf8'));
    expect(textsOf(root), `${request.method} ${request.rawPath}`).toContain(value);
  }
}
