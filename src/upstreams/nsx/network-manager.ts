/**
 * `clients.nsx`: the network manager behind the schema's network types,
 * whichever generation it is. NSX-v is served by NsxClient (XML, /api/2.0 and
 * /api/4.0), NSX-T by NsxtClient (JSON, the Policy API); both fill the same
 * records (wire.ts, the schema's mappers), so the resolvers do not know
 * which one answered. The generation is NSX_API when set, else asked of the
 * manager once (GenerationProbe, NsxtClient.probeGeneration).
 */
import type { GatewayConfig } from '../../gateway-config.ts';
import { NotSupportedError } from '../../errors.ts';
import { UpstreamHttp, type CallContext } from '../../http/upstream-http.ts';
import { upstreamHttpOptions, type UpstreamHooks } from '../../http/upstream-options.ts';
import { GenerationProbe } from '../generation-probe.ts';
import { NsxtClient } from '../nsxt/client.ts';
import { readNsxAnyError } from '../nsxt/error-json.ts';
import { NsxClient } from './client.ts';
import { defaultConflictRetry, type ConflictRetry } from './conflict-retry.ts';
import { addSectionRule, removeSectionRule } from './dfw-edit.ts';
import type {
  DfwRuleDraft,
  IpSetDraft,
  RuleDraft,
  ServiceDraft,
  VirtualServerDraft,
} from './drafts.ts';
import {
  addFirewallRule,
  removeFirewallRule,
  replaceFirewallRules,
  type FirewallAnswer,
} from './firewall-edit.ts';
import type {
  DistributedFirewallRecord,
  EdgeRecord,
  FirewallConfigAnswer,
  FirewallConfigRecord,
  FirewallLayerName,
  FirewallSectionRecord,
  IpSetRecord,
  ServiceRecord,
  VirtualServerRecord,
} from './wire.ts';

/** What the resolvers and loaders ask of the network manager. */
export interface NetworkManager {
  listIpSets(call: CallContext, scopeId: string): Promise<IpSetRecord[]>;
  getIpSet(call: CallContext, id: string): Promise<IpSetRecord>;
  /** Answers the new IP set's id. */
  createIpSet(call: CallContext, scopeId: string, draft: IpSetDraft): Promise<string>;
  updateIpSet(call: CallContext, id: string, draft: IpSetDraft): Promise<IpSetRecord>;
  deleteIpSet(call: CallContext, id: string, force: boolean): Promise<void>;
  listServices(call: CallContext, scopeId: string): Promise<ServiceRecord[]>;
  getService(call: CallContext, id: string): Promise<ServiceRecord>;
  createService(call: CallContext, scopeId: string, draft: ServiceDraft): Promise<string>;
  updateService(call: CallContext, id: string, draft: ServiceDraft): Promise<void>;
  deleteService(call: CallContext, id: string, force: boolean): Promise<void>;
  listEdges(call: CallContext): Promise<EdgeRecord[]>;
  getEdge(call: CallContext, edgeId: string): Promise<EdgeRecord>;
  forceSyncEdge(call: CallContext, edgeId: string): Promise<void>;
  listVirtualServers(call: CallContext, edgeId: string): Promise<VirtualServerRecord[]>;
  addVirtualServer(
    call: CallContext,
    edgeId: string,
    draft: VirtualServerDraft,
  ): Promise<VirtualServerRecord>;
  updateVirtualServer(
    call: CallContext,
    edgeId: string,
    id: string,
    draft: VirtualServerDraft,
  ): Promise<VirtualServerRecord>;
  deleteVirtualServer(call: CallContext, edgeId: string, id: string): Promise<void>;
  getDistributedFirewall(call: CallContext): Promise<DistributedFirewallRecord>;
  getSection(
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
  ): Promise<FirewallSectionRecord>;
  /** Adds a rule at the top of a section, retried on a concurrent change; answers the section read back. */
  addSectionRule(
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
    draft: DfwRuleDraft,
  ): Promise<FirewallSectionRecord>;
  removeSectionRule(
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
    ruleId: string,
  ): Promise<FirewallSectionRecord>;
  /** The application firewall of a port group; null on a generation that has none (NSX-T). */
  getFirewall(call: CallContext, contextId: string): Promise<FirewallConfigRecord | null>;
  replaceFirewallRules(
    call: CallContext,
    contextId: string,
    drafts: readonly RuleDraft[],
    generationNumber: string | undefined,
    answer: FirewallAnswer,
  ): Promise<FirewallConfigAnswer>;
  addFirewallRule(
    call: CallContext,
    contextId: string,
    draft: RuleDraft,
    position: number | undefined,
    answer: FirewallAnswer,
  ): Promise<FirewallConfigAnswer>;
  removeFirewallRule(
    call: CallContext,
    contextId: string,
    ruleId: string,
    answer: FirewallAnswer,
  ): Promise<FirewallConfigAnswer>;
}

/** NSX-v: the XML client, with the read-modify-write edits of firewall-edit.ts and dfw-edit.ts. */
export class NsxvManager implements NetworkManager {
  readonly client: NsxClient;
  readonly #retry: ConflictRetry;

  constructor(client: NsxClient, retry: ConflictRetry = defaultConflictRetry) {
    this.client = client;
    this.#retry = retry;
  }

  listIpSets = (call: CallContext, scopeId: string) => this.client.listIpSets(call, scopeId);
  getIpSet = (call: CallContext, id: string) => this.client.getIpSet(call, id);
  createIpSet = (call: CallContext, scopeId: string, draft: IpSetDraft) =>
    this.client.createIpSet(call, scopeId, draft);
  updateIpSet = (call: CallContext, id: string, draft: IpSetDraft) =>
    this.client.updateIpSet(call, id, draft);
  deleteIpSet = (call: CallContext, id: string, force: boolean) =>
    this.client.deleteIpSet(call, id, force);
  listServices = (call: CallContext, scopeId: string) => this.client.listServices(call, scopeId);
  getService = (call: CallContext, id: string) => this.client.getService(call, id);
  createService = (call: CallContext, scopeId: string, draft: ServiceDraft) =>
    this.client.createService(call, scopeId, draft);
  updateService = (call: CallContext, id: string, draft: ServiceDraft) =>
    this.client.updateService(call, id, draft);
  deleteService = (call: CallContext, id: string, force: boolean) =>
    this.client.deleteService(call, id, force);
  listEdges = (call: CallContext) => this.client.listEdges(call);
  getEdge = (call: CallContext, edgeId: string) => this.client.getEdge(call, edgeId);
  forceSyncEdge = (call: CallContext, edgeId: string) => this.client.forceSyncEdge(call, edgeId);
  listVirtualServers = (call: CallContext, edgeId: string) =>
    this.client.listVirtualServers(call, edgeId);
  addVirtualServer = (call: CallContext, edgeId: string, draft: VirtualServerDraft) =>
    this.client.addVirtualServer(call, edgeId, draft);
  updateVirtualServer = (
    call: CallContext,
    edgeId: string,
    id: string,
    draft: VirtualServerDraft,
  ) => this.client.updateVirtualServer(call, edgeId, id, draft);
  deleteVirtualServer = (call: CallContext, edgeId: string, id: string) =>
    this.client.deleteVirtualServer(call, edgeId, id);
  getDistributedFirewall = (call: CallContext) => this.client.getDistributedFirewall(call);
  getSection = (call: CallContext, layer: FirewallLayerName, sectionId: string) =>
    this.client.getSection(call, layer, sectionId);
  addSectionRule = (
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
    draft: DfwRuleDraft,
  ) => addSectionRule(this.client, call, layer, sectionId, draft, this.#retry);
  removeSectionRule = (
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
    ruleId: string,
  ) => removeSectionRule(this.client, call, layer, sectionId, ruleId, this.#retry);
  getFirewall = (call: CallContext, contextId: string) => this.client.getFirewall(call, contextId);
  replaceFirewallRules = (
    call: CallContext,
    contextId: string,
    drafts: readonly RuleDraft[],
    generationNumber: string | undefined,
    answer: FirewallAnswer,
  ) => replaceFirewallRules(this.client, call, contextId, drafts, generationNumber, answer);
  addFirewallRule = (
    call: CallContext,
    contextId: string,
    draft: RuleDraft,
    position: number | undefined,
    answer: FirewallAnswer,
  ) => addFirewallRule(this.client, call, contextId, draft, position, this.#retry, answer);
  removeFirewallRule = (
    call: CallContext,
    contextId: string,
    ruleId: string,
    answer: FirewallAnswer,
  ) => removeFirewallRule(this.client, call, contextId, ruleId, this.#retry, answer);
}

/**
 * NSX-T: the Policy API client. vShield App's per-port-group firewall has no
 * counterpart (NSX-T's distributed firewall is the security policies, served
 * as sections): its query answers null and its mutations NOT_SUPPORTED,
 * before any call.
 */
export class NsxtManager implements NetworkManager {
  readonly client: NsxtClient;

  constructor(client: NsxtClient) {
    this.client = client;
  }

  listIpSets = (call: CallContext, scopeId: string) => this.client.listIpSets(call, scopeId);
  getIpSet = (call: CallContext, id: string) => this.client.getIpSet(call, id);
  createIpSet = (call: CallContext, scopeId: string, draft: IpSetDraft) =>
    this.client.createIpSet(call, scopeId, draft);
  updateIpSet = (call: CallContext, id: string, draft: IpSetDraft) =>
    this.client.updateIpSet(call, id, draft);
  deleteIpSet = (call: CallContext, id: string, force: boolean) =>
    this.client.deleteIpSet(call, id, force);
  listServices = (call: CallContext, scopeId: string) => this.client.listServices(call, scopeId);
  getService = (call: CallContext, id: string) => this.client.getService(call, id);
  createService = (call: CallContext, scopeId: string, draft: ServiceDraft) =>
    this.client.createService(call, scopeId, draft);
  updateService = (call: CallContext, id: string, draft: ServiceDraft) =>
    this.client.updateService(call, id, draft);
  deleteService = (call: CallContext, id: string, force: boolean) =>
    this.client.deleteService(call, id, force);
  listEdges = (call: CallContext) => this.client.listEdges(call);
  getEdge = (call: CallContext, edgeId: string) => this.client.getEdge(call, edgeId);
  forceSyncEdge = (call: CallContext, edgeId: string) => this.client.forceSyncEdge(call, edgeId);
  listVirtualServers = (call: CallContext, edgeId: string) =>
    this.client.listVirtualServers(call, edgeId);
  addVirtualServer = (call: CallContext, edgeId: string, draft: VirtualServerDraft) =>
    this.client.addVirtualServer(call, edgeId, draft);
  updateVirtualServer = (
    call: CallContext,
    edgeId: string,
    id: string,
    draft: VirtualServerDraft,
  ) => this.client.updateVirtualServer(call, edgeId, id, draft);
  deleteVirtualServer = (call: CallContext, edgeId: string, id: string) =>
    this.client.deleteVirtualServer(call, edgeId, id);
  getDistributedFirewall = (call: CallContext) => this.client.getDistributedFirewall(call);
  getSection = (call: CallContext, layer: FirewallLayerName, sectionId: string) =>
    this.client.getSection(call, layer, sectionId);
  addSectionRule = (
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
    draft: DfwRuleDraft,
  ) => this.client.addSectionRule(call, layer, sectionId, draft);
  removeSectionRule = (
    call: CallContext,
    layer: FirewallLayerName,
    sectionId: string,
    ruleId: string,
  ) => this.client.removeSectionRule(call, layer, sectionId, ruleId);
  getFirewall = (): Promise<FirewallConfigRecord | null> => Promise.resolve(null);
  replaceFirewallRules = (): Promise<FirewallConfigAnswer> =>
    Promise.reject(new NotSupportedError('updateApplicationFirewall', 'NSX-T'));
  addFirewallRule = (): Promise<FirewallConfigAnswer> =>
    Promise.reject(new NotSupportedError('addApplicationFirewallRule', 'NSX-T'));
  removeFirewallRule = (): Promise<FirewallConfigAnswer> =>
    Promise.reject(new NotSupportedError('removeApplicationFirewallRule', 'NSX-T'));
}

type Method = {
  [K in keyof NetworkManager]: NetworkManager[K] extends (
    call: CallContext,
    ...rest: never[]
  ) => unknown
    ? K
    : never;
}[keyof NetworkManager];

/**
 * `clients.nsx`: each call goes to the manager of the generation found
 * (NSX_API, else asked once: `GET /api/v1/node/version`, 200 NSX-T, 404
 * NSX-v). Both clients share the one seam of the upstream `nsx`, so
 * readiness, metrics, the circuit and the concurrency limit stay one.
 */
export class NsxManagers implements NetworkManager {
  readonly v: NsxvManager;
  readonly t: NsxtManager;
  readonly probe: GenerationProbe<'v' | 't'>;
  readonly #http: UpstreamHttp;

  constructor(http: UpstreamHttp, config: GatewayConfig['nsx'], firewallWaitMs?: number) {
    this.#http = http;
    this.v = new NsxvManager(new NsxClient(http, config, firewallWaitMs));
    const t = new NsxtClient(http, config, firewallWaitMs);
    this.t = new NsxtManager(t);
    this.probe = new GenerationProbe(config.api, (call) => t.probeGeneration(call));
  }

  /** The seam, for readiness and metrics. */
  get seam(): UpstreamHttp {
    return this.#http;
  }

  close(): Promise<void> {
    return this.#http.close();
  }

  async #on<K extends Method>(
    method: K,
    call: CallContext,
    ...rest: Parameters<NetworkManager[K]> extends [CallContext, ...infer R] ? R : never
  ): Promise<Awaited<ReturnType<NetworkManager[K]>>> {
    const manager = (await this.probe.get(call)) === 't' ? this.t : this.v;
    const fn = manager[method] as (call: CallContext, ...args: unknown[]) => unknown;
    return (await fn(call, ...rest)) as Awaited<ReturnType<NetworkManager[K]>>;
  }

  listIpSets: NetworkManager['listIpSets'] = (call, ...rest) =>
    this.#on('listIpSets', call, ...rest);
  getIpSet: NetworkManager['getIpSet'] = (call, ...rest) => this.#on('getIpSet', call, ...rest);
  createIpSet: NetworkManager['createIpSet'] = (call, ...rest) =>
    this.#on('createIpSet', call, ...rest);
  updateIpSet: NetworkManager['updateIpSet'] = (call, ...rest) =>
    this.#on('updateIpSet', call, ...rest);
  deleteIpSet: NetworkManager['deleteIpSet'] = (call, ...rest) =>
    this.#on('deleteIpSet', call, ...rest);
  listServices: NetworkManager['listServices'] = (call, ...rest) =>
    this.#on('listServices', call, ...rest);
  getService: NetworkManager['getService'] = (call, ...rest) =>
    this.#on('getService', call, ...rest);
  createService: NetworkManager['createService'] = (call, ...rest) =>
    this.#on('createService', call, ...rest);
  updateService: NetworkManager['updateService'] = (call, ...rest) =>
    this.#on('updateService', call, ...rest);
  deleteService: NetworkManager['deleteService'] = (call, ...rest) =>
    this.#on('deleteService', call, ...rest);
  listEdges: NetworkManager['listEdges'] = (call) => this.#on('listEdges', call);
  getEdge: NetworkManager['getEdge'] = (call, ...rest) => this.#on('getEdge', call, ...rest);
  forceSyncEdge: NetworkManager['forceSyncEdge'] = (call, ...rest) =>
    this.#on('forceSyncEdge', call, ...rest);
  listVirtualServers: NetworkManager['listVirtualServers'] = (call, ...rest) =>
    this.#on('listVirtualServers', call, ...rest);
  addVirtualServer: NetworkManager['addVirtualServer'] = (call, ...rest) =>
    this.#on('addVirtualServer', call, ...rest);
  updateVirtualServer: NetworkManager['updateVirtualServer'] = (call, ...rest) =>
    this.#on('updateVirtualServer', call, ...rest);
  deleteVirtualServer: NetworkManager['deleteVirtualServer'] = (call, ...rest) =>
    this.#on('deleteVirtualServer', call, ...rest);
  getDistributedFirewall: NetworkManager['getDistributedFirewall'] = (call) =>
    this.#on('getDistributedFirewall', call);
  getSection: NetworkManager['getSection'] = (call, ...rest) =>
    this.#on('getSection', call, ...rest);
  addSectionRule: NetworkManager['addSectionRule'] = (call, ...rest) =>
    this.#on('addSectionRule', call, ...rest);
  removeSectionRule: NetworkManager['removeSectionRule'] = (call, ...rest) =>
    this.#on('removeSectionRule', call, ...rest);
  getFirewall: NetworkManager['getFirewall'] = (call, ...rest) =>
    this.#on('getFirewall', call, ...rest);
  replaceFirewallRules: NetworkManager['replaceFirewallRules'] = (call, ...rest) =>
    this.#on('replaceFirewallRules', call, ...rest);
  addFirewallRule: NetworkManager['addFirewallRule'] = (call, ...rest) =>
    this.#on('addFirewallRule', call, ...rest);
  removeFirewallRule: NetworkManager['removeFirewallRule'] = (call, ...rest) =>
    this.#on('removeFirewallRule', call, ...rest);
}

export function createNsxManagers(config: GatewayConfig, hooks: UpstreamHooks = {}): NsxManagers {
  return new NsxManagers(
    new UpstreamHttp({
      ...upstreamHttpOptions(config, 'nsx', hooks),
      readErrorBody: readNsxAnyError,
    }),
    config.nsx,
    config.upstreamTimeoutMs,
  );
}
