/**
 * Fake vRO, vRA and NSX on loopback ports that answer every route the gateway
 * uses with the captured bodies of test/fixtures, except for the one service
 * under attack: its answers carry generated abuse (deep nesting in any field,
 * huge strings, wrong types, invalid UTF-8, declared non-UTF-8 charsets,
 * truncation, ...). Seeded, so a failure can be replayed.
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import {
  startSimServer,
  type RecordedRequest,
  type SimServer,
} from '../../simulators/sim-server.ts';

export type Service = 'vro' | 'vra' | 'nsx';

/** What a route answers before any abuse. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** An answer a test sets itself, in bytes when it must be. */
export interface Override {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** The kinds of abuse; `latin1` and `utf16` are honest answers in another charset, to be read right. */
export const abuseKinds = [
  'deep',
  'deep-shallow-enough-to-parse',
  'huge-string',
  'wrong-type',
  'invalid-utf8',
  'latin1',
  'utf16',
  'unknown-charset',
  'truncated',
  'cut-connection',
  'not-the-format',
  'empty',
  'error-status',
] as const;

export type AbuseKind = (typeof abuseKinds)[number];

export interface HostileUpstreams {
  readonly vro: SimServer;
  readonly vra: SimServer;
  readonly nsx: SimServer;
  /** The gateway's environment for these upstreams. */
  readonly env: Record<string, string>;
  /** Abuse the answers of `service` with `kind` (each answer picks its own field), or none. */
  attack(target: { service: Service; kind: AbuseKind } | undefined): void;
  /**
   * Answers of `service` from `answer`, sent as they are (no abuse); where it
   * answers undefined, the route's own. `undefined` removes it.
   */
  override(
    service: Service,
    answer: ((request: RecordedRequest) => Override | undefined) | undefined,
  ): void;
  close(): Promise<void>;
}

const fixture = (path: string): string =>
  readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');

/** mulberry32: a small seeded generator. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ------------------------------------------------------------------ honest answers

const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const xml = (body: string, status = 200, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': 'application/xml', ...headers },
  body,
});
const raw = (body: string): Answer => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body,
});
const empty = (status: number, headers: Record<string, string> = {}): Answer => ({
  status,
  headers,
  body: '',
});

const workflowsPage = JSON.parse(fixture('vro/workflows-query.json')) as {
  link: Array<{ attributes: Array<{ name: string; value: string }>; href: string }>;
};
const workflowDetail = JSON.parse(fixture('vro/workflow.json')) as Record<string, unknown>;
const execution = JSON.parse(fixture('vro/execution.json')) as Record<string, unknown>;
const presentation = fixture('vro/presentation.json');
const executionsList = fixture('vro/executions.json');
const executionLogs = fixture('vro/execution-logs.json');
const entitledViews = fixture('vra/entitled-catalog-item-views.json');
const requestTemplate = fixture('vra/request-template.json');
// Finished, so that following it (the catalogRequest subscription) completes.
const requestStatus: Record<string, unknown> = {
  ...(JSON.parse(fixture('vra/request-status.json')) as Record<string, unknown>),
  state: 'SUCCESSFUL',
  phase: 'SUCCESSFUL',
  final: true,
};
const requestResources = JSON.parse(fixture('vra/request-resources.json')) as {
  content: unknown[];
};
const actionTemplate = fixture('vra/resource-action-template-destroy.json');
const catalogItem = (
  JSON.parse(fixture('vra/entitled-catalog-item.json')) as { catalogItem: Record<string, unknown> }
).catalogItem;
const provider = {
  '@type': 'Provider',
  id: '6e8e2b1f-0000-4000-8000-00000000aaaa',
  name: 'iaas-service',
  providerTypeId: 'com.vmware.csp.iaas.blueprint.service',
};
const page = (content: unknown[]) => ({
  links: [],
  content,
  metadata: { size: 20, totalElements: content.length, totalPages: 1, number: 1, offset: 0 },
});
const ipSetList = fixture('nsx/ipset-list.xml');
const ipSet = fixture('nsx/ipset-get.xml');
const serviceList = fixture('nsx/application-list.xml');
const oneService = `<?xml version="1.0" encoding="UTF-8"?>\n${/<application>[\s\S]*?<\/application>/.exec(serviceList)?.[0] ?? ''}`;
const firewall = fixture('nsx/vshield-app-firewall-config.xml');
const dfwConfig = fixture('nsx/dfw-config-get.xml');
const dfwSection = fixture('nsx/dfw-layer3section-get.xml');
const dfwRule = /<rule id="16"[\s\S]*?<\/rule>/.exec(dfwSection)?.[0] ?? '<rule/>';
const virtualServer = fixture('nsx/loadbalancer-virtualserver-get.xml');
const edgeSummary = `<edgeSummary><objectId>edge-1</objectId><id>edge-1</id><name>Perimeter-Gateway-01</name><state>deployed</state><edgeType>gatewayServices</edgeType><datacenterName>Datacenter Site A</datacenterName><edgeStatus>GREEN</edgeStatus></edgeSummary>`;
const edgeList = `<pagedEdgeList><edgePage><pagingInfo><pageSize>1024</pageSize><startIndex>0</startIndex><totalCount>1</totalCount></pagingInfo>${edgeSummary}</edgePage></pagedEdgeList>`;

function vroAnswer(request: RecordedRequest): Answer {
  const path = request.path.replace(/^\/vco\/api/, '');
  const segments = path.split('/').filter((s) => s !== '');
  if (request.method === 'GET' && path === '/workflows') {
    const wanted = /^id=(.*)$/.exec(request.query.get('conditions') ?? '')?.[1];
    const page = structuredClone(workflowsPage);
    if (wanted !== undefined) {
      for (const attribute of page.link[0]?.attributes ?? []) {
        if (attribute.name === 'id') attribute.value = wanted;
      }
    }
    return json(page);
  }
  if (segments[0] === 'workflows' && segments.length === 2 && request.method === 'GET') {
    return json({ ...workflowDetail, id: segments[1] });
  }
  if (segments[2] === 'presentation') return raw(presentation);
  if (segments[2] === 'executions' && segments.length === 3 && request.method === 'GET') {
    return raw(executionsList);
  }
  if (segments[4] === 'logs') return raw(executionLogs);
  if (segments[4] === 'state' && request.method === 'DELETE') return empty(204);
  if (segments[2] === 'executions' && request.method === 'POST') {
    return empty(202, {
      location: `https://vro.example:8281/vco/api/workflows/${segments[1]}/executions/ff8080814a1cb55c014a6481a9927a78/`,
    });
  }
  if (segments[2] === 'executions' && segments.length === 4) {
    return json({ ...execution, id: segments[3] });
  }
  if (path === '/packages' && request.method === 'POST') return empty(200);
  return json({});
}

function vraAnswer(request: RecordedRequest): Answer {
  const path = request.path;
  if (path === '/identity/api/tokens') {
    return json({ id: 'hostile-token', expires: '2099-01-01T00:00:00.000Z', tenant: 'qe' });
  }
  if (path === '/catalog-service/api/providers') return json(page([provider]));
  if (path.startsWith('/catalog-service/api/providers/')) {
    return json({ ...provider, id: path.split('/').at(-1) });
  }
  if (path === '/catalog-service/api/catalogItems') return json(page([catalogItem]));
  const consumer = '/catalog-service/api/consumer/';
  if (path.startsWith(consumer)) {
    const rest = path.slice(consumer.length);
    if (rest === 'entitledCatalogItemViews') return raw(entitledViews);
    if (rest.endsWith('/requests/template')) {
      return raw(rest.startsWith('resources/') ? actionTemplate : requestTemplate);
    }
    if (rest.endsWith('/requests') && request.method === 'POST') {
      return json(requestStatus, 201, {
        location: `/catalog-service/api/consumer/requests/${String(requestStatus['id'])}`,
      });
    }
    if (rest === 'requests') return json(page([requestStatus]));
    if (rest.endsWith('/resources')) return json(page(requestResources.content));
    if (rest.startsWith('requests/')) return json(requestStatus);
    if (rest.startsWith('resources/')) return json(requestResources.content[0] ?? {});
  }
  if (request.method === 'PUT') return json(catalogItem);
  return json({});
}

function nsxAnswer(request: RecordedRequest): Answer {
  const path = request.path;
  const created = (id: string) => ({ ...empty(201, { location: `${path}/${id}` }), body: id });
  if (request.method === 'DELETE' || request.method === 'PUT') return empty(200);
  if (path.includes('/app/firewall/')) {
    return request.method === 'GET' ? xml(firewall, 200, { etag: '"5"' }) : empty(204);
  }
  if (path.includes('/ipset/')) {
    if (request.method === 'POST') return created('ipset-9');
    return xml(path.includes('/scope/') ? ipSetList : ipSet);
  }
  if (path.includes('/application/')) {
    if (request.method === 'POST') return created('application-9');
    return xml(path.includes('/scope/') ? serviceList : oneService);
  }
  if (path.includes('/firewall/globalroot-0/config')) {
    if (request.method === 'POST') return xml(dfwRule, 201, { etag: '"1510700045887"' });
    if (path.endsWith('/config')) return xml(dfwConfig, 200, { etag: '"1510700045886"' });
    return xml(dfwSection, 200, { etag: '"1510700045886"' });
  }
  if (path.endsWith('/virtualservers')) {
    return request.method === 'POST'
      ? created('virtualServer-9')
      : xml(`<loadBalancer>${virtualServer}</loadBalancer>`);
  }
  if (path.includes('/virtualservers/')) return xml(virtualServer);
  if (/\/edges$/.test(path)) return xml(edgeList);
  if (path.endsWith('/summary')) return xml(edgeSummary);
  if (path.includes('/edges/')) return empty(204);
  return xml('<ok/>');
}

const honest: Record<Service, (request: RecordedRequest) => Answer> = {
  vro: vroAnswer,
  vra: vraAnswer,
  nsx: nsxAnswer,
};

// ------------------------------------------------------------------ abuse

const hugeLength = 9 * 1024 * 1024;
let hugeText: string | undefined;
const huge = (): string => (hugeText ??= 'x'.repeat(hugeLength));

const deepJson = (levels: number, pick: () => number): string =>
  pick() < 0.5
    ? '['.repeat(levels) + ']'.repeat(levels)
    : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

/** A vRO typed value wrapped `levels` deep (what `unwrapValue` walks). */
const deepVroValue = (levels: number): string =>
  '{"array":{"elements":['.repeat(levels) + '{"string":{"value":"x"}}' + ']}}'.repeat(levels);

const deepXml = (levels: number): string => '<a>'.repeat(levels) + '</a>'.repeat(levels);

const wrongJson = [
  '123',
  'true',
  'null',
  '{}',
  '[]',
  '"text"',
  '-1.5e308',
  '"\\u0000"',
  '[{"a":1}]',
];
const wrongHeader = [
  '',
  '%%%',
  'http://vro.example/vco/api/workflows/w/executions/',
  '/executions/..%2F..%2Fetc',
  '"a b"',
  'W/"',
  'x'.repeat(8000),
];
const wrongXmlText = ['NaN', '-1', '<![CDATA[<x>]]>', '&#0;', '&undefined;', '<b>nested</b>', ''];

/** Every value of a JSON document by path, so that abuse can replace any field the gateway reads. */
function jsonPaths(
  value: unknown,
  prefix: Array<string | number> = [],
): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [prefix];
  const children = Array.isArray(value)
    ? value.map((member, i) => jsonPaths(member, [...prefix, i]))
    : Object.entries(value).map(([key, member]) => jsonPaths(member, [...prefix, key]));
  return [prefix, ...children.flat()];
}

const marker = '\u0001HOSTILE\u0001';

/** The document with the value at a random path replaced by `raw` JSON text. */
function replaceJsonValue(
  body: string,
  raw: (path: Array<string | number>) => string,
  pick: () => number,
): string {
  const document = JSON.parse(body) as unknown;
  const paths = jsonPaths(document).filter((path) => path.length > 0);
  const path = paths[Math.floor(pick() * paths.length)];
  if (path === undefined) return raw([]);
  let parent = document as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  parent[path.at(-1) as string | number] = marker;
  return JSON.stringify(document).replace(JSON.stringify(marker), () => raw(path));
}

const leafElement =
  /<([A-Za-z][\w.-]*)((?:\s[^<>]*)?)>([^<]*)<\/\1>|<([A-Za-z][\w.-]*)((?:\s[^<>]*)?)\/>/g;

/** The document with the content of a random leaf element replaced by `raw` XML text. */
function replaceXmlText(body: string, raw: string, pick: () => number): string {
  const leaves = [...body.matchAll(leafElement)];
  const leaf = leaves[Math.floor(pick() * leaves.length)];
  if (leaf === undefined) return raw;
  const name = leaf[1] ?? leaf[4] ?? 'x';
  const attributes = leaf[2] ?? leaf[5] ?? '';
  const at = leaf.index;
  return `${body.slice(0, at)}<${name}${attributes}>${raw}</${name}>${body.slice(at + leaf[0].length)}`;
}

/**
 * A non-ASCII text to put in an honest answer in another charset: it must come
 * out unchanged. Within Latin-1 (which ISO-8859-1 and windows-1252 share).
 */
export const accentedText = 'Zürich café ½ ñ';

function withAccentedText(answer: Answer, pick: () => number): string {
  if (answer.body === '') return answer.body;
  return isXml(answer)
    ? replaceXmlText(answer.body, accentedText, pick)
    : replaceJsonValue(answer.body, () => JSON.stringify(accentedText), pick);
}

const isXml = (answer: Answer): boolean => (answer.headers['content-type'] ?? '').includes('xml');

interface Sent {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Send only this many bytes of the body, then cut the connection. */
  cutAfter?: number;
}

function abuse(service: Service, kind: AbuseKind, answer: Answer, pick: () => number): Sent {
  const plain = (
    body: string | Buffer,
    headers = answer.headers,
    status = answer.status,
  ): Sent => ({
    status,
    headers,
    body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
  });
  const inXml = isXml(answer);
  const body = answer.body === '' ? (service === 'nsx' ? '<ok/>' : '{"id":"x"}') : answer.body;
  const replaced = (jsonRaw: (path: Array<string | number>) => string, xmlRaw: string): string =>
    inXml || service === 'nsx'
      ? replaceXmlText(body, xmlRaw, pick)
      : replaceJsonValue(body, jsonRaw, pick);
  switch (kind) {
    case 'deep':
      return plain(
        replaced(
          (path) =>
            path.includes('value') && pick() < 0.5 ? deepVroValue(3000) : deepJson(6000, pick),
          deepXml(6000),
        ),
      );
    case 'deep-shallow-enough-to-parse':
      return plain(
        replaced(
          (path) => (path.includes('value') ? deepVroValue(100) : deepJson(200, pick)),
          // Past the JSON bounds, within what the XML parser accepts (100 elements).
          deepXml(90),
        ),
      );
    case 'huge-string':
      // Past the JSON bounds in JSON; in XML a mere megabyte (the parser's time grows with it).
      return plain(replaced(() => `"${huge()}"`, huge().slice(0, 1024 * 1024)));
    case 'wrong-type': {
      const headers = { ...answer.headers };
      // The headers the gateway reads: where a run or a created object is, the firewall's generation.
      for (const name of ['location', 'etag'] as const) {
        if (headers[name] !== undefined && pick() < 0.5) {
          headers[name] = wrongHeader[Math.floor(pick() * wrongHeader.length)] ?? '';
        }
      }
      return plain(
        replaced(
          () => wrongJson[Math.floor(pick() * wrongJson.length)] ?? 'null',
          wrongXmlText[Math.floor(pick() * wrongXmlText.length)] ?? '',
        ),
        headers,
      );
    }
    case 'invalid-utf8': {
      // A lone 0xC3 then 0xFF 0xFE: never valid UTF-8, wherever the marker landed.
      const bytes = Buffer.from(
        replaced(() => '"\u0002"', '\u0002'),
        'utf8',
      );
      const at = bytes.indexOf(0x02);
      const invalid = Buffer.from([0xc3, 0x28, 0xff, 0xfe]);
      const abused =
        at < 0
          ? Buffer.concat([bytes, invalid])
          : Buffer.concat([bytes.subarray(0, at), invalid, bytes.subarray(at + 1)]);
      return plain(abused, {
        ...answer.headers,
        'content-type': `${answer.headers['content-type'] ?? 'application/json'}; charset=utf-8`,
      });
    }
    case 'latin1': {
      const text = withAccentedText({ ...answer, body }, pick);
      if (inXml && pick() < 0.5) {
        // Declared only by the XML declaration, as an NSX manager on a Windows-1252 host might.
        const declared = text
          .replace(/^<\?xml[^>]*\?>/, '')
          .replace(/^/, '<?xml version="1.0" encoding="windows-1252"?>');
        return plain(Buffer.from(declared, 'latin1'));
      }
      return plain(Buffer.from(text, 'latin1'), {
        ...answer.headers,
        'content-type': `${answer.headers['content-type'] ?? 'application/json'}; charset=ISO-8859-1`,
      });
    }
    case 'utf16': {
      const text = withAccentedText({ ...answer, body }, pick);
      return plain(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), {
        ...answer.headers,
        'content-type': `${answer.headers['content-type'] ?? 'application/json'}; charset=utf-16`,
      });
    }
    case 'unknown-charset':
      return plain(body, {
        ...answer.headers,
        'content-type': `${answer.headers['content-type'] ?? 'text/plain'}; charset=x-klingon-${'9'.repeat(200)}`,
      });
    case 'truncated':
      return plain(body.slice(0, Math.floor(pick() * body.length)));
    case 'cut-connection':
      return { ...plain(body), cutAfter: Math.floor(pick() * body.length) };
    case 'not-the-format':
      return plain(
        inXml || service === 'nsx' ? '{"not":"xml"}' : '<html><body>Login</body></html>',
        { ...answer.headers, 'content-type': 'text/html' },
      );
    case 'empty':
      return plain('');
    case 'error-status': {
      const statuses = [400, 401, 403, 404, 409, 412, 500, 503];
      const status = statuses[Math.floor(pick() * statuses.length)] ?? 500;
      const errorBody =
        service === 'nsx'
          ? `<error><errorCode>${deepXml(900)}</errorCode><details>${huge().slice(0, 100_000)}</details></error>`
          : `{"errors":[{"code":${deepJson(6000, pick)},"message":"${huge().slice(0, 100_000)}"}]}`;
      return plain(errorBody, answer.headers, status);
    }
  }
}

function send(response: ServerResponse, sent: Sent): void {
  const headers = { ...sent.headers, 'content-length': String(sent.body.length) };
  response.writeHead(sent.status, headers);
  if (sent.cutAfter === undefined) {
    response.end(sent.body);
    return;
  }
  response.write(sent.body.subarray(0, sent.cutAfter), () => response.destroy());
}

/** Starts the three fake upstreams. */
export async function startHostileUpstreams(seed: number): Promise<HostileUpstreams> {
  const pick = random(seed);
  let target: { service: Service; kind: AbuseKind } | undefined;
  const overrides = new Map<Service, (request: RecordedRequest) => Override | undefined>();
  const handler = (service: Service) => (request: RecordedRequest, response: ServerResponse) => {
    const own = overrides.get(service)?.(request);
    if (own !== undefined) {
      send(response, { ...own, body: Buffer.from(own.body) });
      return;
    }
    const answer = honest[service](request);
    // The readiness probe (GET of the API root) is left alone: only the gateway's own calls are abused.
    const probe = request.method === 'GET' && /^\/(vco\/api\/?)?$/.test(request.path);
    if (target?.service === service && !probe) {
      send(response, abuse(service, target.kind, answer, pick));
    } else {
      send(response, {
        status: answer.status,
        headers: answer.headers,
        body: Buffer.from(answer.body, 'utf8'),
      });
    }
  };
  const [vro, vra, nsx] = await Promise.all([
    startSimServer(handler('vro')),
    startSimServer(handler('vra')),
    startSimServer(handler('nsx')),
  ]);
  return {
    vro,
    vra,
    nsx,
    env: {
      VRO_URL: `${vro.origin}/vco/api`,
      VRO_USERNAME: 'svc',
      VRO_PASSWORD: 'vro-secret',
      VRA_URL: vra.origin,
      VRA_USERNAME: 'svc@corp',
      VRA_PASSWORD: 'vra-secret',
      VRA_TENANT: 'qe',
      // the fakes answer any path: the generations are told, not asked
      VRA_API_GENERATION: '7',
      NSX_API: 'v',
      NSX_URL: nsx.origin,
      NSX_USERNAME: 'svc',
      NSX_PASSWORD: 'nsx-secret',
    },
    attack(next) {
      target = next;
    },
    override(service, answer) {
      if (answer === undefined) overrides.delete(service);
      else overrides.set(service, answer);
    },
    close: async () => {
      await Promise.all([vro.close(), vra.close(), nsx.close()]);
    },
  };
}

// ------------------------------------------------------------------ lists without end (paging abuse)

/** What an override answers: a route's answer, or undefined for the route's own. */
export type OverrideAnswer = (request: RecordedRequest) => Override | undefined;

const jsonOverride = (body: string, status = 200): Override => ({
  status,
  headers: { 'content-type': 'application/json' },
  body,
});

/** `count` NSX-T groups (each one IPAddressExpression), as `GET …/groups` lists them. */
export function nsxtGroups(count: number, padding = 0, bare = false): string {
  const pad = 'p'.repeat(padding);
  const groups: string[] = [];
  for (let i = 0; i < count; i++) {
    if (bare) {
      groups.push(`{"id":"g${i}"}`);
      continue;
    }
    groups.push(
      `{"id":"g${i}","display_name":"group ${i}","description":"${pad}","_revision":0,` +
        `"expression":[{"resource_type":"IPAddressExpression","ip_addresses":["10.0.0.${i % 250}"]}]}`,
    );
  }
  return groups.join(',');
}

/**
 * An NSX-T manager whose Policy lists never end: every page of any list
 * (`GET /policy/api/v1/…` with or without `cursor`) carries about `pageBytes`
 * of groups and a new cursor, and a `result_count` of a trillion.
 */
export function endlessNsxtList(pageBytes: number): OverrideAnswer {
  const perGroup = 200;
  const results = nsxtGroups(Math.max(1, Math.floor(pageBytes / perGroup)), 60);
  let served = 0;
  return (request) => {
    if (request.method !== 'GET' || !request.path.startsWith('/policy/api/v1/')) return undefined;
    served += 1;
    return jsonOverride(
      `{"result_count":1000000000000,"results":[${results}],"cursor":"c${served}"}`,
    );
  };
}

/** An NSX-T manager that answers every Policy list in one page of `count` groups (ids only). */
export function hugeNsxtList(count: number): OverrideAnswer {
  const body = `{"result_count":${count},"results":[${nsxtGroups(count, 0, true)}]}`;
  return (request) =>
    request.method === 'GET' && request.path.startsWith('/policy/api/v1/')
      ? jsonOverride(body)
      : undefined;
}

const vra8Item = (schema?: unknown) => ({
  id: 'item-1',
  name: 'CentOS',
  projectIds: ['project-1'],
  projects: [{ id: 'project-1', name: 'Engineering' }],
  type: { id: 'com.vmw.vro.workflow', name: 'vRO Workflow' },
  ...(schema === undefined ? {} : { schema }),
});

/** A vRA 8 item's input schema of `count` properties, half of them required. */
export function wideVra8Schema(count: number): unknown {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (let i = 0; i < count; i++) {
    properties[`input${i}`] = i % 2 === 0 ? { default: i } : {};
    if (i % 2 === 1) required.push(`input${i}`);
  }
  return { type: 'object', properties, required };
}

/**
 * vRA 8 (CSP login, catalog items) whose project list (`GET /iaas/api/projects`,
 * read whole for `entitledCatalogItems`) announces `totalElements` and
 * answers every page with `pageSize` projects; the item's schema is `schema`.
 */
export function vra8Paging(options: {
  totalElements: number;
  pageSize?: number;
  schema?: unknown;
}): OverrideAnswer {
  const projects: string[] = [];
  for (let i = 0; i < (options.pageSize ?? 200); i++) {
    projects.push(`{"id":"project-${i + 1}","name":"Project ${i + 1}"}`);
  }
  const projectPage = `{"content":[${projects.join(',')}],"totalElements":${options.totalElements},"numberOfElements":${projects.length}}`;
  // The list carries no schema (vRA 8 lists items without their form); the item itself does.
  const listed = JSON.stringify(vra8Item());
  const item = JSON.stringify(vra8Item(options.schema));
  return (request) => {
    const path = request.path;
    if (path === '/csp/gateway/am/api/login') {
      return jsonOverride('{"refresh_token":"hostile-refresh","access_token":"a"}');
    }
    if (path === '/iaas/api/login') return jsonOverride('{"token":"hostile-bearer"}');
    if (path === '/iaas/api/projects') return jsonOverride(projectPage);
    if (path === '/catalog/api/items') {
      return jsonOverride(`{"content":[${listed}],"totalElements":1,"numberOfElements":1}`);
    }
    if (path.startsWith('/catalog/api/items/')) return jsonOverride(item);
    return undefined;
  };
}

/**
 * vRA 7 whose providers list announces `totalElements` and answers each page
 * with `pageSize` providers.
 */
export function vra7Paging(options: { totalElements: number; pageSize: number }): OverrideAnswer {
  // The first is the fixture's provider; the rest as small as vRA's Provider allows.
  const providers: unknown[] = [provider];
  for (let i = 1; i < options.pageSize; i++) {
    providers.push({ id: `p${i}`, name: `p${i}`, providerTypeId: 't' });
  }
  const body = JSON.stringify({
    links: [],
    content: providers,
    metadata: {
      size: 5000,
      totalElements: options.totalElements,
      totalPages: Math.ceil(options.totalElements / 5000),
      number: 1,
      offset: 0,
    },
  });
  return (request) =>
    request.path === '/catalog-service/api/providers' ? jsonOverride(body) : undefined;
}

/** NSX-v whose edge list announces `totalCount` edges and answers every page with one. */
export function endlessNsxvEdges(totalCount: number): OverrideAnswer {
  const body = `<pagedEdgeList><edgePage><pagingInfo><pageSize>1024</pageSize><startIndex>0</startIndex><totalCount>${totalCount}</totalCount></pagingInfo>${edgeSummary}</edgePage></pagedEdgeList>`;
  return (request) =>
    request.method === 'GET' && /\/edges$/.test(request.path)
      ? { status: 200, headers: { 'content-type': 'application/xml' }, body }
      : undefined;
}
