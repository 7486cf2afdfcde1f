import { Readable } from 'node:stream';
import type { GatewayConfig } from '../../../gateway-config.ts';
import { isNotFound } from '../../../errors.ts';
import { basicAuthorization } from '../../../http/auth.ts';
import { path, type QueryValue } from '../../../http/path.ts';
import { releaseBuffer } from '../../../http/release-buffer.ts';
import {
  UpstreamHttp,
  type CallContext,
  type HttpMethod,
  type UpstreamResponse,
} from '../../../http/upstream-http.ts';
import { upstreamHttpOptions, type UpstreamHooks } from '../../../http/upstream-options.ts';
import { isNsxId } from '../ids.ts';
import { readDistributedFirewall, readSection, sectionPathSegment } from './dfw-xml.ts';
import type { IpSetDraft, ServiceDraft, VirtualServerDraft } from '../drafts.ts';
import { readEdgePage, readEdgeSummary } from './edge-xml.ts';
import { readNsxError } from '../error-xml.ts';
import { badResponse } from '../fields.ts';
import {
  checkFirewallDocument,
  firewallCheckOptions,
  firewallParseOptions,
  generationFromEtag,
  readFirewallConfig,
} from './firewall-xml.ts';
import { KeyedLock } from '../keyed-lock.ts';
import { ipSetCreateXml, ipSetUpdateXml, readIpSet, readIpSetList } from './ip-set-xml.ts';
import { readService, readServiceList, serviceCreateXml, serviceUpdateXml } from './service-xml.ts';
import {
  readVirtualServer,
  readVirtualServerList,
  virtualServerUpdateXml,
  virtualServerXml,
  writtenVirtualServer,
} from './virtual-server-xml.ts';
import type {
  DistributedFirewallRecord,
  EdgeRecord,
  FirewallConfigRecord,
  FirewallGenerationRecord,
  FirewallLayerName,
  FirewallSectionRecord,
  IpSetRecord,
  ServiceRecord,
  VirtualServerRecord,
  WithXml,
} from '../wire.ts';
import { XmlError, type ParseOptions, type XmlElement } from '../xml/xml.ts';
import {
  buildXmlBytesInSlices,
  buildXmlPartsInSlices,
  parseXmlInSlices,
  partsCopied,
} from '../xml/xml-slices.ts';

interface NsxRequest {
  method: HttpMethod;
  path: string;
  route: string;
  /** `bytes`: a success answer is parsed from its UTF-8 bytes, never made one string (xml.ts). */
  answerAs?: 'bytes';
  query?: Readonly<Record<string, QueryValue>>;
  body?: XmlElement;
  /** Media type of the body; `application/xml` unless said otherwise. */
  contentType?: string;
  /**
   * The body sent as copies made as it goes (xml-slices.ts, `partsCopied`),
   * never one buffer: for a request that is not retried (a POST).
   */
  streamBody?: boolean;
  /** Made afresh, its answer not shared with the GraphQL request's other reads. */
  exclusive?: boolean;
  headers?: Readonly<Record<string, string>>;
  /** Largest body accepted (a page of a list). */
  maxBytes?: number;
}

const xmlMediaType = 'application/xml';

/** Edges per page: the manager's maximum (RAML 6.4, nsxEdgesRead: 1-1024). */
const edgePageSize = 1024;

/**
 * Typed calls to the network security manager (NSX / vCNS), on the corrected
 * paths (docs/upstreams.md, NSX). Every body is built and read by xml.ts;
 * every id that goes into a path is percent-encoded (ids from a caller come
 * checked by src/inputs/network.ts).
 */
export class NsxClient {
  /** This process's firewall writes, one at a time per context (see firewall-edit.ts). */
  readonly firewallWrites: KeyedLock;
  readonly #http: UpstreamHttp;
  readonly #config: GatewayConfig['nsx'];
  /** The edge API version found on the manager, once asked (see #edgeApiVersion). */
  #discoveredEdgeVersion: Promise<string> | undefined;

  /** `firewallWaitMs`: how long a firewall write waits behind this process's others (UPSTREAM_TIMEOUT_MS). */
  constructor(http: UpstreamHttp, config: GatewayConfig['nsx'], firewallWaitMs?: number) {
    this.#http = http;
    this.#config = config;
    this.firewallWrites = new KeyedLock(
      firewallWaitMs === undefined ? {} : { maxWaitMs: firewallWaitMs },
    );
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  // ------------------------------------------------------------ IP sets

  async listIpSets(call: CallContext, scopeId: string): Promise<IpSetRecord[]> {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/api/2.0/services/ipset/scope/${scopeId}`,
      route: '/api/2.0/services/ipset/scope/{scopeId}',
    });
    return readIpSetList(await this.#parse(response));
  }

  async getIpSet(call: CallContext, id: string): Promise<WithXml<IpSetRecord>> {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/api/2.0/services/ipset/${id}`,
      route: '/api/2.0/services/ipset/{id}',
    });
    return readIpSet(await this.#parse(response));
  }

  /** Answers the new IP set's id. */
  async createIpSet(call: CallContext, scopeId: string, draft: IpSetDraft): Promise<string> {
    const response = await this.#send(call, {
      method: 'POST',
      path: path`/api/2.0/services/ipset/${scopeId}`,
      route: '/api/2.0/services/ipset/{scopeId}',
      body: ipSetCreateXml(draft),
    });
    return createdId(response);
  }

  /**
   * Reads the current IP set and writes the draft over it, against its
   * revision; answers the set as the manager answered the PUT (with its new
   * revision). A manager that answers the PUT with no body is asked again.
   */
  async updateIpSet(call: CallContext, id: string, draft: IpSetDraft): Promise<IpSetRecord> {
    const current = await this.getIpSet(call, id);
    const response = await this.#send(call, {
      method: 'PUT',
      path: path`/api/2.0/services/ipset/${id}`,
      route: '/api/2.0/services/ipset/{id}',
      body: ipSetUpdateXml(current, draft),
    });
    if (response.body.trim() === '') return this.getIpSet(call, id);
    return readIpSet(await this.#parse(response));
  }

  async deleteIpSet(call: CallContext, id: string, force: boolean): Promise<void> {
    await this.#send(call, {
      method: 'DELETE',
      path: path`/api/2.0/services/ipset/${id}`,
      route: '/api/2.0/services/ipset/{id}',
      query: { force },
    });
  }

  // ------------------------------------------------------------ services

  async listServices(call: CallContext, scopeId: string): Promise<ServiceRecord[]> {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/api/2.0/services/application/scope/${scopeId}`,
      route: '/api/2.0/services/application/scope/{scopeId}',
    });
    return readServiceList(await this.#parse(response));
  }

  async getService(call: CallContext, id: string): Promise<WithXml<ServiceRecord>> {
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/api/2.0/services/application/${id}`,
      route: '/api/2.0/services/application/{id}',
    });
    return readService(await this.#parse(response));
  }

  /** Answers the new service's id. The scope is the segment right after `application` (docs/upstreams.md, NSX). */
  async createService(call: CallContext, scopeId: string, draft: ServiceDraft): Promise<string> {
    const response = await this.#send(call, {
      method: 'POST',
      path: path`/api/2.0/services/application/${scopeId}`,
      route: '/api/2.0/services/application/{scopeId}',
      body: serviceCreateXml(draft),
    });
    return createdId(response);
  }

  async updateService(call: CallContext, id: string, draft: ServiceDraft): Promise<void> {
    const current = await this.getService(call, id);
    await this.#send(call, {
      method: 'PUT',
      path: path`/api/2.0/services/application/${id}`,
      route: '/api/2.0/services/application/{id}',
      body: serviceUpdateXml(current, draft),
    });
  }

  async deleteService(call: CallContext, id: string, force: boolean): Promise<void> {
    await this.#send(call, {
      method: 'DELETE',
      path: path`/api/2.0/services/application/${id}`,
      route: '/api/2.0/services/application/{id}',
      query: { force },
    });
  }

  // ------------------------------------------------------------ edges

  /**
   * Every edge, page by page (`GET /api/{v}/edges?startIndex=&pageSize=`),
   * within the seam's paging limits.
   */
  async listEdges(call: CallContext): Promise<EdgeRecord[]> {
    const version = await this.#edgeApiVersion(call);
    const edges: EdgeRecord[] = [];
    const pages = this.#http.pagedRead(call);
    for (;;) {
      const response = await pages.next((maxBytes) =>
        this.#send(call, {
          method: 'GET',
          path: path`/api/${version}/edges`,
          route: '/api/{version}/edges',
          query: { startIndex: edges.length, pageSize: edgePageSize },
          maxBytes,
        }),
      );
      const { edges: more, totalCount } = readEdgePage(await this.#parse(response));
      for (const edge of more) edges.push(edge);
      if (more.length === 0 || totalCount === null || edges.length >= totalCount) return edges;
      pages.expectPages(Math.ceil(totalCount / edgePageSize));
    }
  }

  /** `GET /api/{v}/edges/{edgeId}/summary`: the same `<edgeSummary>` the list holds. */
  async getEdge(call: CallContext, edgeId: string): Promise<EdgeRecord> {
    const version = await this.#edgeApiVersion(call);
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/api/${version}/edges/${edgeId}/summary`,
      route: '/api/{version}/edges/{edgeId}/summary',
    });
    const root = await this.#parse(response);
    if (root.name !== 'edgeSummary') {
      throw badResponse(`<edgeSummary> expected, got <${root.name}>`, response.status);
    }
    return readEdgeSummary(root);
  }

  async listVirtualServers(call: CallContext, edgeId: string): Promise<VirtualServerRecord[]> {
    const version = await this.#edgeApiVersion(call);
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/api/${version}/edges/${edgeId}/loadbalancer/config/virtualservers`,
      route: '/api/{version}/edges/{edgeId}/loadbalancer/config/virtualservers',
    });
    return readVirtualServerList(await this.#parse(response));
  }

  async addVirtualServer(
    call: CallContext,
    edgeId: string,
    draft: VirtualServerDraft,
  ): Promise<VirtualServerRecord> {
    const version = await this.#edgeApiVersion(call);
    const response = await this.#send(call, {
      method: 'POST',
      path: path`/api/${version}/edges/${edgeId}/loadbalancer/config/virtualservers`,
      route: '/api/{version}/edges/{edgeId}/loadbalancer/config/virtualservers',
      body: virtualServerXml(draft),
    });
    return writtenVirtualServer(draft, createdIdIfAny(response));
  }

  /**
   * Reads the virtual server and writes the draft over it, so that what the
   * gateway does not model (vendor profiles, service insertion) is kept; the
   * answer is what was written.
   */
  async updateVirtualServer(
    call: CallContext,
    edgeId: string,
    id: string,
    draft: VirtualServerDraft,
  ): Promise<VirtualServerRecord> {
    const version = await this.#edgeApiVersion(call);
    const serverPath = path`/api/${version}/edges/${edgeId}/loadbalancer/config/virtualservers/${id}`;
    const route = '/api/{version}/edges/{edgeId}/loadbalancer/config/virtualservers/{id}';
    const current = readVirtualServer(
      await this.#parse(await this.#send(call, { method: 'GET', path: serverPath, route })),
    );
    if (current.xml === null) throw badResponse('a virtual server without its element');
    const written = virtualServerUpdateXml(current.xml, draft);
    await this.#send(call, { method: 'PUT', path: serverPath, route, body: written });
    return { ...readVirtualServer(written), virtualServerId: current.virtualServerId ?? id };
  }

  async deleteVirtualServer(call: CallContext, edgeId: string, id: string): Promise<void> {
    const version = await this.#edgeApiVersion(call);
    await this.#send(call, {
      method: 'DELETE',
      path: path`/api/${version}/edges/${edgeId}/loadbalancer/config/virtualservers/${id}`,
      route: '/api/{version}/edges/{edgeId}/loadbalancer/config/virtualservers/{id}',
    });
  }

  /**
   * `POST ?action=forcesync` with no body: the documented GET form is wrong
   * (docs/upstreams.md, NSX). It still carries `Content-Type: application/xml`:
   * the manager documents 415 for a POST without one.
   */
  async forceSyncEdge(call: CallContext, edgeId: string): Promise<void> {
    const version = await this.#edgeApiVersion(call);
    await this.#send(call, {
      method: 'POST',
      path: path`/api/${version}/edges/${edgeId}`,
      route: '/api/{version}/edges/{edgeId}?action=forcesync',
      query: { action: 'forcesync' },
      contentType: xmlMediaType,
    });
  }

  /**
   * The version segment of edge paths: NSX_EDGE_API_VERSION when set, else
   * asked of the manager once per process. NSX-v 6.x serves edges under
   * `/api/4.0` only, vCNS 5.x under `/api/3.0` only, so a one-edge read of
   * `/api/4.0/edges` tells them apart: 404 means vCNS. A failed probe is not
   * remembered.
   */
  #edgeApiVersion(call: CallContext): Promise<string> {
    const configured = this.#config.edgeApiVersion;
    if (configured !== undefined) return Promise.resolve(configured);
    this.#discoveredEdgeVersion ??= this.#probeEdgeApiVersion(call).catch((error: unknown) => {
      this.#discoveredEdgeVersion = undefined;
      throw error;
    });
    return this.#discoveredEdgeVersion;
  }

  async #probeEdgeApiVersion(call: CallContext): Promise<string> {
    try {
      await this.#send(call, {
        method: 'GET',
        path: '/api/4.0/edges',
        route: '/api/4.0/edges (edge API version probe)',
        query: { startIndex: 0, pageSize: 1 },
      });
      return '4.0';
    } catch (error) {
      if (isNotFound(error)) return '3.0';
      throw error;
    }
  }

  // ------------------------------------------------------------ distributed firewall (NSX-v 6.x)

  async getDistributedFirewall(call: CallContext): Promise<DistributedFirewallRecord> {
    const response = await this.#send(call, {
      method: 'GET',
      path: '/api/4.0/firewall/globalroot-0/config',
      route: '/api/4.0/firewall/globalroot-0/config',
    });
    return readDistributedFirewall(await this.#parse(response), response.headers['etag']);
  }

  /** One section, with its ETag as the generation number. */
  async getSection(
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
  ): Promise<FirewallSectionRecord> {
    const segment = sectionPathSegment[layer];
    const response = await this.#send(call, {
      method: 'GET',
      path: path`/api/4.0/firewall/globalroot-0/config/${segment}/${sectionId}`,
      route: `/api/4.0/firewall/globalroot-0/config/${segment}/{sectionId}`,
    });
    const etag = response.headers['etag'];
    return readSection(
      await this.#parse(response),
      layer,
      etag === undefined || etag === '' ? undefined : etag,
    );
  }

  /**
   * Adds a rule to a section against its generation number. The RAML's
   * examples send If-Match unquoted; the number is stripped of the quotes
   * that 6.4.5 and later put around the ETag (docs/upstreams.md, NSX).
   */
  async postSectionRule(
    call: CallContext,
    section: FirewallSectionRecord,
    rule: XmlElement,
  ): Promise<void> {
    const segment = sectionPathSegment[section.layer];
    await this.#send(call, {
      method: 'POST',
      path: path`/api/4.0/firewall/globalroot-0/config/${segment}/${section.id}/rules`,
      route: `/api/4.0/firewall/globalroot-0/config/${segment}/{sectionId}/rules`,
      body: rule,
      headers: { 'if-match': section.generationNumber },
    });
  }

  async deleteSectionRule(
    call: CallContext,
    section: FirewallSectionRecord,
    ruleId: string,
  ): Promise<void> {
    const segment = sectionPathSegment[section.layer];
    await this.#send(call, {
      method: 'DELETE',
      path: path`/api/4.0/firewall/globalroot-0/config/${segment}/${section.id}/rules/${ruleId}`,
      route: `/api/4.0/firewall/globalroot-0/config/${segment}/{sectionId}/rules/{ruleId}`,
      headers: { 'if-match': section.generationNumber },
    });
  }

  // ------------------------------------------------------------ application firewall

  /**
   * `forEdit`: a read of its own (not shared with the GraphQL request's
   * other reads), whose record can free its bytes (`release`) once the edit
   * is through.
   */
  async getFirewall(
    call: CallContext,
    contextId: string,
    forEdit = false,
  ): Promise<FirewallConfigRecord> {
    const response = await this.#readFirewall(call, contextId, forEdit);
    const bytes = response.bytes;
    const release = (): void => {
      if (forEdit && bytes !== undefined) releaseBuffer(bytes);
    };
    try {
      const generation = generationFromEtag(response.headers['etag']);
      const document = await this.#parse(response, firewallParseOptions);
      const config = readFirewallConfig(document, contextId, generation);
      return forEdit ? { ...config, release } : config;
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * The configuration's generation number, on a read of its own: the answer
   * is checked (well-formed throughout, its root and the rules' element)
   * without reading its rules, and its bytes are freed at once.
   */
  async getFirewallGeneration(
    call: CallContext,
    contextId: string,
  ): Promise<FirewallGenerationRecord> {
    const response = await this.#readFirewall(call, contextId, true);
    try {
      const generationNumber = generationFromEtag(response.headers['etag']);
      checkFirewallDocument(await this.#parse(response, firewallCheckOptions));
      return { contextId, generationNumber };
    } finally {
      if (response.bytes !== undefined) releaseBuffer(response.bytes);
    }
  }

  /** `GET` of the context's configuration; `exclusive`: a read of the caller's own (see UpstreamRequest). */
  #readFirewall(
    call: CallContext,
    contextId: string,
    exclusive: boolean,
  ): Promise<UpstreamResponse> {
    return this.#send(call, {
      method: 'GET',
      path: path`/api/2.0/app/firewall/${contextId}/config`,
      route: '/api/2.0/app/firewall/{contextId}/config',
      // megabytes on a large manager: never one string, and each rule a range of the bytes
      answerAs: 'bytes',
      exclusive,
    });
  }

  /**
   * Replaces the whole configuration of the context. vShield App wants the
   * generation number in double quotes in If-Match, and `text/xml`
   * (docs/upstreams.md, NSX).
   */
  async postFirewall(
    call: CallContext,
    contextId: string,
    generationNumber: string,
    document: XmlElement,
  ): Promise<void> {
    await this.#send(call, {
      method: 'POST',
      path: path`/api/2.0/app/firewall/${contextId}/config`,
      route: '/api/2.0/app/firewall/{contextId}/config',
      body: document,
      contentType: 'text/xml',
      headers: { 'if-match': `"${generationNumber}"` },
      streamBody: true,
    });
  }

  // ------------------------------------------------------------ plumbing

  /** The seam, for readiness and metrics. */
  get seam(): UpstreamHttp {
    return this.#http;
  }

  /** The one place the upstream credential is computed: the user's own, else the service account. */
  #authorization(call: CallContext): string | undefined {
    const user = call.credentials?.nsx;
    if (user !== undefined) return user;
    const { username, password } = this.#config;
    if (username === undefined) return undefined;
    return basicAuthorization(username, password ?? '');
  }

  async #send(call: CallContext, request: NsxRequest): Promise<UpstreamResponse> {
    const headers: Record<string, string> = { accept: xmlMediaType, ...request.headers };
    let body: Buffer | Readable | undefined;
    if (request.body !== undefined) {
      if (request.streamBody === true) {
        const { parts, length } = await buildXmlPartsInSlices(request.body, { declaration: true });
        body = Readable.from(partsCopied(parts));
        headers['content-length'] = String(length);
      } else {
        body = await buildXmlBytesInSlices(request.body, { declaration: true });
      }
      headers['content-type'] = `${request.contentType ?? xmlMediaType}; charset=utf-8`;
    } else if (request.contentType !== undefined) {
      headers['content-type'] = request.contentType;
    }
    const authorization = this.#authorization(call);
    return this.#http.request(call, {
      method: request.method,
      path: request.path,
      route: request.route,
      headers,
      ...(request.query === undefined ? {} : { query: request.query }),
      ...(request.answerAs === undefined ? {} : { answerAs: request.answerAs }),
      ...(request.exclusive === true ? { exclusive: true } : {}),
      ...(request.maxBytes === undefined ? {} : { maxBytes: request.maxBytes }),
      ...(body === undefined ? {} : { body }),
      ...(authorization === undefined ? {} : { authorization }),
    });
  }

  /** Large configurations are parsed and built in slices, so that other requests are served meanwhile. */
  async #parse(response: UpstreamResponse, options: ParseOptions = {}): Promise<XmlElement> {
    try {
      return await parseXmlInSlices(response.bytes ?? response.body, options);
    } catch (error) {
      if (error instanceof XmlError) throw badResponse(error.message, response.status);
      throw error;
    }
  }
}

/**
 * The id of a created object: 201 with the id as plain text and a Location
 * ending in it (docs/upstreams.md, NSX). The Location is required.
 */
function createdId(response: UpstreamResponse): string {
  const id = createdIdIfAny(response);
  if (response.headers['location'] === undefined) {
    throw badResponse('a create answer without a Location header', response.status);
  }
  if (id === null) throw badResponse('a create answer without the new id', response.status);
  return id;
}

function createdIdIfAny(response: UpstreamResponse): string | null {
  const location = response.headers['location'];
  const fromBody = response.body.trim();
  let fromLocation: string | undefined;
  if (location !== undefined) {
    const last =
      location
        .replace(/[?#].*$/, '')
        .replace(/\/+$/, '')
        .split('/')
        .at(-1) ?? '';
    try {
      fromLocation = decodeURIComponent(last);
    } catch {
      throw badResponse('a Location header that is not a URL', response.status);
    }
  }
  if (fromBody !== '' && fromLocation !== undefined && fromBody !== fromLocation) {
    throw badResponse(
      'a create answer whose body and Location name different ids',
      response.status,
    );
  }
  const id = fromLocation ?? (fromBody === '' ? undefined : fromBody);
  if (id === undefined) return null;
  if (!isNsxId(id)) {
    throw badResponse('a create answer with an id that is not an NSX id', response.status);
  }
  return id;
}

export function createNsxClient(config: GatewayConfig, hooks: UpstreamHooks = {}): NsxClient {
  return new NsxClient(
    new UpstreamHttp({ ...upstreamHttpOptions(config, 'nsx', hooks), readErrorBody: readNsxError }),
    config.nsx,
    config.upstreamTimeoutMs,
  );
}
