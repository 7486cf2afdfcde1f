import { randomUUID } from 'node:crypto';
import type { GatewayConfig } from '../../../gateway-config.ts';
import { GatewayError, NotSupportedError, UpstreamStatusError } from '../../../errors.ts';
import { basicAuthorization } from '../../../http/auth.ts';
import { path, type QueryValue } from '../../../http/path.ts';
import type {
  CallContext,
  HttpMethod,
  UpstreamHttp,
  UpstreamResponse,
} from '../../../http/upstream-http.ts';
import {
  defaultConflictRetry,
  retryOnConflict,
  serialised,
  type ConflictRetry,
} from '../conflict-retry.ts';
import type { DfwRuleDraft, IpSetDraft, ServiceDraft, VirtualServerDraft } from '../drafts.ts';
import { badResponse } from '../fields.ts';
import { isApplianceAnswer } from '../../generation-answer.ts';
import { KeyedLock } from '../keyed-lock.ts';
import { SectionRuleNotFoundError } from '../rule-not-found-error.ts';
import type {
  DistributedFirewallRecord,
  EdgeRecord,
  FirewallLayerName,
  FirewallSectionRecord,
  IpSetRecord,
  ServiceRecord,
  VirtualServerRecord,
} from '../wire.ts';
import {
  defaultDomain,
  domainOfScope,
  groupToIpSet,
  ipSetGroupBody,
  isIpAddressGroup,
  isL4Protocol,
  lastSegment,
  layerOfPolicy,
  policyToSection,
  protocolOfProfile,
  ruleBody,
  serviceBody,
  serviceToRecord,
  sortedRules,
  tier1ToEdge,
  virtualServerToRecord,
} from './records.ts';
import {
  objectList,
  objectOf,
  optionalNumber,
  optionalString,
  parseJsonBody,
  readListPage,
  readPolicyObject,
  writable,
  type Json,
  type PolicyObject,
} from './wire.ts';

/** Every Policy API path is below this root (NSX-T 3.x, NSX 4.x). */
const policyRoot = '/policy/api/v1';
const jsonMediaType = 'application/json';

/** The default application profiles of a manager (LBHttpProfile, LBFastTcpProfile, LBFastUdpProfile). */
const defaultProfileOf: Readonly<Record<string, string>> = {
  http: '/infra/lb-app-profiles/default-http-lb-app-profile',
  tcp: '/infra/lb-app-profiles/default-tcp-lb-app-profile',
  udp: '/infra/lb-app-profiles/default-udp-lb-app-profile',
};

interface NsxtRequest {
  method: HttpMethod;
  /** Below `/policy/api/v1`, unless `api` says otherwise. */
  path: string;
  route: string;
  /** Largest body accepted (a page of a list). */
  maxBytes?: number;
  query?: Readonly<Record<string, QueryValue>>;
  body?: Json;
  /** `node`: a path of the manager's node API (`/api/v1/…`), not the Policy API. */
  api?: 'policy' | 'node';
}

/** An NSX-T object the schema names that is missing, found on reading (no write was made). */
export class NsxtNotFoundError extends GatewayError {
  readonly code = 'NOT_FOUND';
  constructor(message: string) {
    super(message, { extensions: { code: 'NOT_FOUND' } });
  }
}

/**
 * Typed calls to an NSX-T manager's Policy API, behind the network schema's
 * types (docs/generations.md, NSX-T): JSON over the same seam as the NSX-v
 * client (one seam per upstream for readiness and metrics), Basic auth.
 * Every change is sent with the `_revision` of the object it was read as;
 * firewall changes are re-read and retried on 412.
 */
export class NsxtClient {
  /** This process's security policy writes, one at a time per policy. */
  readonly firewallWrites: KeyedLock;
  readonly #http: UpstreamHttp;
  readonly #config: GatewayConfig['nsx'];

  constructor(http: UpstreamHttp, config: GatewayConfig['nsx'], firewallWaitMs?: number) {
    this.#http = http;
    this.#config = config;
    this.firewallWrites = new KeyedLock(
      firewallWaitMs === undefined ? {} : { maxWaitMs: firewallWaitMs },
    );
  }

  get seam(): UpstreamHttp {
    return this.#http;
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  /**
   * Which generation the manager is: NSX-T (and NSX 4) answers
   * `GET /api/v1/node/version` with a NodeVersion (`node_version`,
   * `product_version`). NSX-v has no `/api/v1`: whatever else it answers
   * (404, 401 or 403 in any body, a redirect, a page) is NSX-v. The question
   * carries the call's credential, which NSX-T itself may refuse: a refusal
   * in NSX-T's own error body (JSON with `error_code`) says nothing of the
   * generation, and fails that call alone. No answer, 429 or a 5xx: asked
   * again next time (isApplianceAnswer).
   */
  async probeGeneration(call: CallContext): Promise<'v' | 't'> {
    let response: UpstreamResponse;
    try {
      response = await this.#send(call, {
        method: 'GET',
        api: 'node',
        path: '/api/v1/node/version',
        route: '/api/v1/node/version (generation probe)',
      });
    } catch (error) {
      if (isApplianceAnswer(error) && !isNsxtApiError(error)) return 'v';
      throw error;
    }
    return isNodeVersion(response.body) ? 't' : 'v';
  }

  // ------------------------------------------------------------ IP sets (groups)

  async listIpSets(call: CallContext, scopeId: string): Promise<IpSetRecord[]> {
    const domain = domainOfScope(scopeId);
    const groups = await this.#list(
      call,
      path`/infra/domains/${domain}/groups`,
      '/infra/domains/{domain}/groups',
    );
    return groups.map((group) => groupToIpSet(group, domain));
  }

  async getIpSet(call: CallContext, id: string): Promise<IpSetRecord> {
    return groupToIpSet((await this.#getGroup(call, id)).raw, defaultDomain);
  }

  /** A new group with one IPAddressExpression, under a fresh id; answers the id. */
  async createIpSet(call: CallContext, scopeId: string, draft: IpSetDraft): Promise<string> {
    refuseInheritance('createIpSet', draft.inheritanceAllowed);
    const domain = domainOfScope(scopeId);
    const id = `ipset-${randomUUID()}`;
    await this.#send(call, {
      method: 'PUT',
      path: path`/infra/domains/${domain}/groups/${id}`,
      route: '/infra/domains/{domain}/groups/{id}',
      body: ipSetGroupBody(draft, null),
    });
    return id;
  }

  /**
   * Reads the group and writes the draft over it with its `_revision`; a
   * group with criteria other than IP addresses is refused before the write
   * (its criteria cannot be shown as an IP set, so they are not replaced).
   */
  async updateIpSet(call: CallContext, id: string, draft: IpSetDraft): Promise<IpSetRecord> {
    refuseInheritance('updateIpSet', draft.inheritanceAllowed);
    const current = await this.#getGroup(call, id);
    if (!isIpAddressGroup(current.raw)) {
      throw new NotSupportedError(
        `updateIpSet of group ${id}, whose membership criteria are not IP addresses,`,
        'NSX-T',
      );
    }
    const response = await this.#send(call, {
      method: 'PUT',
      path: path`/infra/domains/${defaultDomain}/groups/${id}`,
      route: '/infra/domains/{domain}/groups/{id}',
      body: ipSetGroupBody(draft, current),
    });
    if (response.body.trim() === '') return this.getIpSet(call, id);
    return groupToIpSet(parseJsonBody(response.body, response.status), defaultDomain);
  }

  async deleteIpSet(call: CallContext, id: string, force: boolean): Promise<void> {
    await this.#send(call, {
      method: 'DELETE',
      path: path`/infra/domains/${defaultDomain}/groups/${id}`,
      route: '/infra/domains/{domain}/groups/{id}',
      ...(force ? { query: { force: true } } : {}),
    });
  }

  #getGroup(call: CallContext, id: string): Promise<PolicyObject> {
    return this.#getObject(
      call,
      path`/infra/domains/${defaultDomain}/groups/${id}`,
      '/infra/domains/{domain}/groups/{id}',
      'a group',
    );
  }

  // ------------------------------------------------------------ services

  /** Services are not per domain on NSX-T: every scope lists all of them. */
  async listServices(call: CallContext, _scopeId: string): Promise<ServiceRecord[]> {
    const services = await this.#list(call, '/infra/services', '/infra/services');
    return services.map(serviceToRecord);
  }

  async getService(call: CallContext, id: string): Promise<ServiceRecord> {
    return serviceToRecord((await this.#getService(call, id)).raw);
  }

  async createService(call: CallContext, _scopeId: string, draft: ServiceDraft): Promise<string> {
    refuseNonL4('createService', draft);
    const id = `application-${randomUUID()}`;
    await this.#send(call, {
      method: 'PUT',
      path: path`/infra/services/${id}`,
      route: '/infra/services/{id}',
      body: serviceBody(draft, null),
    });
    return id;
  }

  async updateService(call: CallContext, id: string, draft: ServiceDraft): Promise<void> {
    refuseNonL4('updateService', draft);
    const current = await this.#getService(call, id);
    await this.#send(call, {
      method: 'PUT',
      path: path`/infra/services/${id}`,
      route: '/infra/services/{id}',
      body: serviceBody(draft, current),
    });
  }

  /** The Policy API's service delete has no force: `force: true` is refused before any call. */
  async deleteService(call: CallContext, id: string, force: boolean): Promise<void> {
    if (force) throw new NotSupportedError('deleteService with force', 'NSX-T');
    await this.#send(call, {
      method: 'DELETE',
      path: path`/infra/services/${id}`,
      route: '/infra/services/{id}',
    });
  }

  #getService(call: CallContext, id: string): Promise<PolicyObject> {
    return this.#getObject(call, path`/infra/services/${id}`, '/infra/services/{id}', 'a service');
  }

  // ------------------------------------------------------------ Tier-1 gateways (edges)

  async listEdges(call: CallContext): Promise<EdgeRecord[]> {
    return (await this.#list(call, '/infra/tier-1s', '/infra/tier-1s')).map(tier1ToEdge);
  }

  async getEdge(call: CallContext, edgeId: string): Promise<EdgeRecord> {
    const tier1 = await this.#getObject(
      call,
      path`/infra/tier-1s/${edgeId}`,
      '/infra/tier-1s/{id}',
      'a Tier-1 gateway',
    );
    return tier1ToEdge(tier1.raw);
  }

  /** NSX-T has no counterpart of an edge's forced sync: refused before any call. */
  forceSyncEdge(_call: CallContext, _edgeId: string): Promise<void> {
    return Promise.reject(new NotSupportedError('forceSyncEdge', 'NSX-T'));
  }

  // ------------------------------------------------------------ load-balancer virtual servers

  /**
   * The virtual servers of a Tier-1 gateway: those whose `lb_service_path`
   * names an LBService attached to it (`connectivity_path`). The protocol
   * comes from the application profile's type.
   */
  async listVirtualServers(call: CallContext, edgeId: string): Promise<VirtualServerRecord[]> {
    const [services, servers] = await Promise.all([
      this.#lbServicePathsOf(call, edgeId),
      this.#list(call, '/infra/lb-virtual-servers', '/infra/lb-virtual-servers'),
    ]);
    const profiles = new Map<string, Promise<string>>();
    return Promise.all(
      servers
        .map((server) => readPolicyObject(server, 'a virtual server'))
        .filter((server) => services.has(optionalString(server.raw, 'lb_service_path') ?? ''))
        .map(async (server) =>
          virtualServerToRecord(server, await this.#protocolOf(call, server, profiles)),
        ),
    );
  }

  async addVirtualServer(
    call: CallContext,
    edgeId: string,
    draft: VirtualServerDraft,
  ): Promise<VirtualServerRecord> {
    refuseHttps('addVirtualServer', draft);
    const services = await this.#lbServicePathsOf(call, edgeId);
    const servicePath = [...services][0];
    if (servicePath === undefined) {
      throw new NsxtNotFoundError(`Tier-1 gateway ${edgeId} has no load balancer service.`);
    }
    const id = `virtualServer-${randomUUID()}`;
    const body = virtualServerBody(draft, null, servicePath, null);
    return this.#putVirtualServer(call, id, body, draft.protocol);
  }

  /** Reads the virtual server, writes the draft over it with its `_revision`. */
  async updateVirtualServer(
    call: CallContext,
    edgeId: string,
    id: string,
    draft: VirtualServerDraft,
  ): Promise<VirtualServerRecord> {
    refuseHttps('updateVirtualServer', draft);
    const current = await this.#virtualServerOf(call, edgeId, id);
    const profilePath = optionalString(current.raw, 'application_profile_path');
    const keepProfile =
      profilePath !== null &&
      (await this.#protocolOf(call, current, new Map())).replace('https', 'http') === draft.protocol
        ? profilePath
        : null;
    const body = virtualServerBody(draft, current, null, keepProfile);
    return this.#putVirtualServer(call, id, body, draft.protocol);
  }

  async deleteVirtualServer(call: CallContext, edgeId: string, id: string): Promise<void> {
    await this.#virtualServerOf(call, edgeId, id);
    await this.#send(call, {
      method: 'DELETE',
      path: path`/infra/lb-virtual-servers/${id}`,
      route: '/infra/lb-virtual-servers/{id}',
    });
  }

  async #putVirtualServer(
    call: CallContext,
    id: string,
    body: Json,
    protocol: string,
  ): Promise<VirtualServerRecord> {
    const response = await this.#send(call, {
      method: 'PUT',
      path: path`/infra/lb-virtual-servers/${id}`,
      route: '/infra/lb-virtual-servers/{id}',
      body,
    });
    const written =
      response.body.trim() === '' ? { ...body, id } : parseJsonBody(response.body, response.status);
    return virtualServerToRecord(readPolicyObject(written, 'a virtual server'), protocol);
  }

  /** The virtual server, when an LBService of the Tier-1 gateway holds it; else NOT_FOUND. */
  async #virtualServerOf(call: CallContext, edgeId: string, id: string): Promise<PolicyObject> {
    const [server, services] = await Promise.all([
      this.#getObject(
        call,
        path`/infra/lb-virtual-servers/${id}`,
        '/infra/lb-virtual-servers/{id}',
        'a virtual server',
      ),
      this.#lbServicePathsOf(call, edgeId),
    ]);
    if (!services.has(optionalString(server.raw, 'lb_service_path') ?? '')) {
      throw new NsxtNotFoundError(`Tier-1 gateway ${edgeId} has no virtual server ${id}.`);
    }
    return server;
  }

  /** Paths of the LBServices attached to the Tier-1 gateway. */
  async #lbServicePathsOf(call: CallContext, edgeId: string): Promise<Set<string>> {
    const tier1Path = `/infra/tier-1s/${edgeId}`;
    const services = await this.#list(call, '/infra/lb-services', '/infra/lb-services');
    const paths = new Set<string>();
    for (const value of services) {
      const service = readPolicyObject(value, 'a load balancer service');
      if (optionalString(service.raw, 'connectivity_path') === tier1Path) {
        paths.add(service.facts.path ?? `/infra/lb-services/${service.id}`);
      }
    }
    return paths;
  }

  /**
   * The schema's protocol (lower case) of a virtual server: its application
   * profile's type (LBHttpProfile: HTTP, or HTTPS with a client SSL profile
   * binding; LBFastTcpProfile: TCP; LBFastUdpProfile: UDP). The manager's
   * default profiles are known by path; any other is read
   * (`GET /infra/lb-app-profiles/{id}`), once per call of the client.
   */
  async #protocolOf(
    call: CallContext,
    server: PolicyObject,
    profiles: Map<string, Promise<string>>,
  ): Promise<string> {
    const profilePath = optionalString(server.raw, 'application_profile_path');
    if (profilePath === null) throw badResponse(`virtual server ${server.id} without a profile`);
    let protocol = profiles.get(profilePath);
    if (protocol === undefined) {
      protocol = this.#profileProtocol(call, profilePath);
      profiles.set(profilePath, protocol);
    }
    const ssl = server.raw['client_ssl_profile_binding'];
    const plain = await protocol;
    return plain === 'http' && ssl !== undefined && ssl !== null ? 'https' : plain;
  }

  async #profileProtocol(call: CallContext, profilePath: string): Promise<string> {
    const known = Object.entries(defaultProfileOf).find(([, path]) => path === profilePath);
    if (known !== undefined) return known[0];
    const id = lastSegment(profilePath) ?? '';
    const profile = await this.#getObject(
      call,
      path`/infra/lb-app-profiles/${id}`,
      '/infra/lb-app-profiles/{id}',
      'an application profile',
    );
    const protocol = protocolOfProfile(optionalString(profile.raw, 'resource_type'));
    if (protocol === null) throw badResponse(`application profile ${id} of no known type`);
    return protocol;
  }

  // ------------------------------------------------------------ distributed firewall (security policies)

  /** Security policies of the default domain as sections: layer-3 ones first, each layer in the manager's order. */
  async getDistributedFirewall(call: CallContext): Promise<DistributedFirewallRecord> {
    const listed = (
      await this.#list(
        call,
        path`/infra/domains/${defaultDomain}/security-policies`,
        '/infra/domains/{domain}/security-policies',
      )
    ).map((value) => readPolicyObject(value, 'a security policy'));
    const sections = await Promise.all(
      listed.map(async (policy) => policyToSection(policy, await this.#rulesOf(call, policy))),
    );
    // NSX-T has no generation of the whole firewall: the latest change of any policy stands for it.
    let latest = 0;
    for (const policy of listed) {
      latest = Math.max(latest, optionalNumber(policy.raw, '_last_modified_time') ?? 0);
    }
    return {
      generationNumber: String(latest),
      sections: [
        ...sections.filter((section) => section.layer === 'LAYER3'),
        ...sections.filter((section) => section.layer === 'LAYER2'),
      ],
    };
  }

  async getSection(
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
  ): Promise<FirewallSectionRecord> {
    const { policy, rules } = await this.#readPolicy(call, layer, sectionId);
    return policyToSection(policy, rules);
  }

  /**
   * Adds a rule at the top of a security policy: the policy is read with its
   * rules and written whole (`PUT …/security-policies/{id}`, "a full
   * replace") with its `_revision` and every rule (each with its own
   * `_revision`), the new rule's sequence number before every other. A stale revision (412: another
   * writer came first) re-reads and resends, so no concurrent rule is lost.
   */
  async addSectionRule(
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
    draft: DfwRuleDraft,
    retry: ConflictRetry = defaultConflictRetry,
  ): Promise<FirewallSectionRecord> {
    const id = `rule-${randomUUID()}`;
    await this.#editPolicy(call, layer, sectionId, retry, (rules) => {
      const ordered = sortedRules(rules);
      const first =
        ordered[0] === undefined ? 1 : (optionalNumber(ordered[0], 'sequence_number') ?? 0);
      if (first >= 1) return [ruleBody(draft, id, first - 1), ...ordered];
      // no room before the first rule: every rule moves one down
      return [
        ruleBody(draft, id, 0),
        ...ordered.map((rule, index) => ({ ...rule, sequence_number: index + 1 })),
      ];
    });
    return this.getSection(call, layer, sectionId);
  }

  async removeSectionRule(
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
    ruleId: string,
  ): Promise<FirewallSectionRecord> {
    // A delete takes only its own rule: no other writer's change can be lost, so it carries no revision.
    await serialised(this.firewallWrites, policyLockKey(sectionId), call, async () => {
      const { rules } = await this.#readPolicy(call, layer, sectionId);
      if (!rules.some((rule) => rule['id'] === ruleId)) {
        throw new SectionRuleNotFoundError(ruleId, sectionId);
      }
      await this.#send(call, {
        method: 'DELETE',
        path: path`/infra/domains/${defaultDomain}/security-policies/${sectionId}/rules/${ruleId}`,
        route: '/infra/domains/{domain}/security-policies/{id}/rules/{ruleId}',
      });
    });
    return this.getSection(call, layer, sectionId);
  }

  #editPolicy(
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
    retry: ConflictRetry,
    edit: (rules: Json[]) => Json[],
  ): Promise<void> {
    return retryOnConflict(this.firewallWrites, policyLockKey(sectionId), call, retry, async () => {
      const { policy, rules } = await this.#readPolicy(call, layer, sectionId);
      const body = writable(policy.raw);
      body['rules'] = edit(rules.map(writable));
      await this.#send(call, {
        method: 'PUT',
        path: path`/infra/domains/${defaultDomain}/security-policies/${sectionId}`,
        route: '/infra/domains/{domain}/security-policies/{id}',
        body,
      });
    });
  }

  /**
   * The policy, then its rules (in that order: a change between the two
   * leaves the revision read older than the rules, and the write is refused
   * with 412 rather than losing the change). A policy of the other layer is
   * not found, as NSX-v's layer-2 and layer-3 sections are apart.
   */
  async #readPolicy(
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
  ): Promise<{ policy: PolicyObject; rules: Json[] }> {
    const policy = await this.#getObject(
      call,
      path`/infra/domains/${defaultDomain}/security-policies/${sectionId}`,
      '/infra/domains/{domain}/security-policies/{id}',
      'a security policy',
    );
    if (layerOfPolicy(policy.raw) !== layer) {
      throw new UpstreamStatusError(
        'nsx',
        404,
        null,
        `security policy ${sectionId} holds ${layer === 'LAYER3' ? 'layer-2' : 'layer-3'} rules`,
      );
    }
    return { policy, rules: await this.#rulesOf(call, policy) };
  }

  /** A policy's rules: those its answer carries, else `GET …/rules`, every page. */
  async #rulesOf(call: CallContext, policy: PolicyObject): Promise<Json[]> {
    if (Array.isArray(policy.raw['rules'])) return objectList(policy.raw, 'rules');
    const rules = await this.#list(
      call,
      path`/infra/domains/${defaultDomain}/security-policies/${policy.id}/rules`,
      '/infra/domains/{domain}/security-policies/{id}/rules',
    );
    return rules.map((rule, index) => objectOf(rule, `rules[${index}]`));
  }

  // ------------------------------------------------------------ plumbing

  async #getObject(
    call: CallContext,
    objectPath: string,
    route: string,
    what: string,
  ): Promise<PolicyObject> {
    const response = await this.#send(call, { method: 'GET', path: objectPath, route });
    return readPolicyObject(parseJsonBody(response.body, response.status), what);
  }

  /**
   * Every page of a list (`cursor` from one answer to the next), within the
   * seam's paging limits: a cursor that never ends fails the list, not the process.
   */
  async #list(call: CallContext, listPath: string, route: string): Promise<unknown[]> {
    const items: unknown[] = [];
    const pages = this.#http.pagedRead(call);
    let cursor: string | null = null;
    for (;;) {
      const response: UpstreamResponse = await pages.next((maxBytes) =>
        this.#send(call, {
          method: 'GET',
          path: listPath,
          route,
          maxBytes,
          ...(cursor === null ? {} : { query: { cursor } }),
        }),
      );
      const answer = readListPage(parseJsonBody(response.body, response.status));
      for (const result of answer.results) items.push(result);
      if (answer.cursor === null || answer.results.length === 0) return items;
      cursor = answer.cursor;
    }
  }

  #authorization(call: CallContext): string | undefined {
    const user = call.credentials?.nsx;
    if (user !== undefined) return user;
    const { username, password } = this.#config;
    if (username === undefined) return undefined;
    return basicAuthorization(username, password ?? '');
  }

  #send(call: CallContext, request: NsxtRequest): Promise<UpstreamResponse> {
    const headers: Record<string, string> = { accept: jsonMediaType };
    let body: Buffer | undefined;
    if (request.body !== undefined) {
      body = Buffer.from(JSON.stringify(request.body), 'utf8');
      headers['content-type'] = `${jsonMediaType}; charset=utf-8`;
    }
    const authorization = this.#authorization(call);
    const root = request.api === 'node' ? '' : policyRoot;
    return this.#http.request(call, {
      method: request.method,
      path: `${root}${request.path}`,
      route: `${root}${request.route}`,
      headers,
      ...(request.query === undefined ? {} : { query: request.query }),
      ...(request.maxBytes === undefined ? {} : { maxBytes: request.maxBytes }),
      ...(body === undefined ? {} : { body }),
      ...(authorization === undefined ? {} : { authorization }),
    });
  }
}

/** A NodeVersion: an object with `node_version` or `product_version`. */
function isNodeVersion(body: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body) as unknown;
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null) return false;
  const version = parsed as Record<string, unknown>;
  return (
    typeof version['node_version'] === 'string' || typeof version['product_version'] === 'string'
  );
}

/** NSX-T's ApiError (JSON with `error_code`); NSX-v's errors are XML, or JSON without it. */
function isNsxtApiError(error: UpstreamStatusError): boolean {
  return error.contentType?.toLowerCase().includes('json') === true && error.upstream.code !== null;
}

function policyLockKey(policyId: string): string {
  return `nsxt:policy:${policyId}`;
}

/**
 * The LBVirtualServer written: over the one read (with its `_revision`)
 * when there is one. The application profile is the input's, else the one
 * kept (same protocol), else the manager's default profile of the protocol.
 */
function virtualServerBody(
  draft: VirtualServerDraft,
  current: PolicyObject | null,
  lbServicePath: string | null,
  keptProfile: string | null,
): Json {
  const body: Json =
    current === null ? { resource_type: 'LBVirtualServer' } : writable(current.raw);
  if (lbServicePath !== null) body['lb_service_path'] = lbServicePath;
  body['display_name'] = draft.name;
  if (draft.description === null) delete body['description'];
  else body['description'] = draft.description;
  if (draft.enabled !== null) body['enabled'] = draft.enabled;
  body['ip_address'] = draft.ipAddress;
  body['ports'] = draft.port.split(',').map((port) => port.trim());
  body['application_profile_path'] =
    draft.applicationProfileId === null
      ? (keptProfile ?? defaultProfileOf[draft.protocol])
      : `/infra/lb-app-profiles/${draft.applicationProfileId}`;
  if (draft.defaultPoolId !== null) body['pool_path'] = `/infra/lb-pools/${draft.defaultPoolId}`;
  setLimit(body, 'max_concurrent_connections', draft.connectionLimit);
  setLimit(body, 'max_new_connection_rate', draft.connectionRateLimit);
  return body;
}

/** A connection limit: 0 (the schema's "unlimited") is no limit on NSX-T, whose limits start at 1. */
function setLimit(
  body: Json,
  field: 'max_concurrent_connections' | 'max_new_connection_rate',
  value: number | null,
): void {
  if (value === null) return;
  if (value !== 0) body[field] = value;
  else if (field === 'max_concurrent_connections') delete body['max_concurrent_connections'];
  else delete body['max_new_connection_rate'];
}

/** HTTPS needs a client SSL profile binding (a certificate) the schema's input cannot carry. */
function refuseHttps(field: string, draft: VirtualServerDraft): void {
  if (draft.protocol === 'https')
    throw new NotSupportedError(`${field} with protocol HTTPS`, 'NSX-T');
}

/** An L4PortSetServiceEntry carries TCP and UDP; other protocols are refused before any call. */
function refuseNonL4(field: string, draft: ServiceDraft): void {
  if (!isL4Protocol(draft.protocol)) {
    throw new NotSupportedError(`${field} with protocol ${draft.protocol}`, 'NSX-T');
  }
}

/** Groups have no inheritance to child scopes on NSX-T: asking for it is refused before any call. */
function refuseInheritance(field: string, inheritanceAllowed: boolean | undefined): void {
  if (inheritanceAllowed === true) {
    throw new NotSupportedError(`${field} with inheritanceAllowed`, 'NSX-T');
  }
}
