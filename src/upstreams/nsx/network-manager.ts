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
import { NsxtClient } from './t/client.ts';
import { readNsxAnyError } from './t/error-json.ts';
import { NsxClient } from './v/client.ts';
import { defaultConflictRetry, type ConflictRetry } from './conflict-retry.ts';
import { addSectionRule, removeSectionRule } from './v/dfw-edit.ts';
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
} from './v/firewall-edit.ts';
import type * as wire from './wire.ts';

/** What the resolvers and loaders ask of the network manager. */
export interface NetworkManager {
  listIpSets(call: CallContext, scopeId: string): Promise<wire.IpSetRecord[]>;
  getIpSet(call: CallContext, id: string): Promise<wire.IpSetRecord>;
  /** Answers the new IP set's id. */
  createIpSet(call: CallContext, scopeId: string, draft: IpSetDraft): Promise<string>;
  updateIpSet(call: CallContext, id: string, draft: IpSetDraft): Promise<wire.IpSetRecord>;
  deleteIpSet(call: CallContext, id: string, force: boolean): Promise<void>;
  listServices(call: CallContext, scopeId: string): Promise<wire.ServiceRecord[]>;
  getService(call: CallContext, id: string): Promise<wire.ServiceRecord>;
  createService(call: CallContext, scopeId: string, draft: ServiceDraft): Promise<string>;
  updateService(call: CallContext, id: string, draft: ServiceDraft): Promise<void>;
  deleteService(call: CallContext, id: string, force: boolean): Promise<void>;
  listEdges(call: CallContext): Promise<wire.EdgeRecord[]>;
  getEdge(call: CallContext, edgeId: string): Promise<wire.EdgeRecord>;
  forceSyncEdge(call: CallContext, edgeId: string): Promise<void>;
  listVirtualServers(call: CallContext, edgeId: string): Promise<wire.VirtualServerRecord[]>;
  addVirtualServer(
    call: CallContext,
    edgeId: string,
    draft: VirtualServerDraft,
  ): Promise<wire.VirtualServerRecord>;
  updateVirtualServer(
    call: CallContext,
    edgeId: string,
    id: string,
    draft: VirtualServerDraft,
  ): Promise<wire.VirtualServerRecord>;
  deleteVirtualServer(call: CallContext, edgeId: string, id: string): Promise<void>;
  getDistributedFirewall(call: CallContext): Promise<wire.DistributedFirewallRecord>;
  getSection(
    call: CallContext,
    layer: wire.FirewallLayerName,
    sectionId: string,
  ): Promise<wire.FirewallSectionRecord>;
  /** Adds a rule at the top of a section, retried on a concurrent change; answers the section read back. */
  addSectionRule(
    call: CallContext,
    layer: wire.FirewallLayerName,
    sectionId: string,
    draft: DfwRuleDraft,
  ): Promise<wire.FirewallSectionRecord>;
  removeSectionRule(
    call: CallContext,
    layer: wire.FirewallLayerName,
    sectionId: string,
    ruleId: string,
  ): Promise<wire.FirewallSectionRecord>;
  /** The application firewall of a port group; null on a generation that has none (NSX-T). */
  getFirewall(call: CallContext, contextId: string): Promise<wire.FirewallConfigRecord | null>;
  replaceFirewallRules(
    call: CallContext,
    contextId: string,
    drafts: readonly RuleDraft[],
    generationNumber: string | undefined,
    answer: FirewallAnswer,
  ): Promise<wire.FirewallConfigAnswer>;
  addFirewallRule(
    call: CallContext,
    contextId: string,
    draft: RuleDraft,
    position: number | undefined,
    answer: FirewallAnswer,
  ): Promise<wire.FirewallConfigAnswer>;
  removeFirewallRule(
    call: CallContext,
    contextId: string,
    ruleId: string,
    answer: FirewallAnswer,
  ): Promise<wire.FirewallConfigAnswer>;
}

/** The methods each generation's client answers itself, with the same arguments. */
const clientMethods = [
  'listIpSets',
  'getIpSet',
  'createIpSet',
  'updateIpSet',
  'deleteIpSet',
  'listServices',
  'getService',
  'createService',
  'updateService',
  'deleteService',
  'listEdges',
  'getEdge',
  'forceSyncEdge',
  'listVirtualServers',
  'addVirtualServer',
  'updateVirtualServer',
  'deleteVirtualServer',
  'getDistributedFirewall',
  'getSection',
] as const satisfies readonly (keyof NetworkManager)[];
type ClientMethod = (typeof clientMethods)[number];

/** The methods every generation's manager has: the client's, then those the managers add. */
const managerMethods = [
  ...clientMethods,
  'addSectionRule',
  'removeSectionRule',
  'getFirewall',
  'replaceFirewallRules',
  'addFirewallRule',
  'removeFirewallRule',
] as const satisfies readonly (keyof NetworkManager)[];

/** A NetworkManager method seen without its particular arguments, to hand them on. */
type AnyMethod = (call: CallContext, ...rest: unknown[]) => unknown;

/**
 * For each of `names`, a method that hands its name and arguments to `send`:
 * how a manager forwards a method without writing it out.
 */
function forwarders<K extends keyof NetworkManager>(
  names: readonly K[],
  send: (name: K, call: CallContext, rest: unknown[]) => unknown,
): Pick<NetworkManager, K> {
  const methods = names.map((name) => {
    const method: AnyMethod = (call, ...rest) => send(name, call, rest);
    return [name, method];
  });
  return Object.fromEntries(methods) as Pick<NetworkManager, K>;
}

/** Calls `name` of `target` (`this` being the target) with the arguments given. */
function callOn<K extends keyof NetworkManager>(
  target: Pick<NetworkManager, K>,
  name: K,
  call: CallContext,
  rest: unknown[],
): unknown {
  return (target[name] as AnyMethod).call(target, call, ...rest);
}

/** The client methods of a manager: each calls the client's own. */
function forwardToClient(
  client: Pick<NetworkManager, ClientMethod>,
): Pick<NetworkManager, ClientMethod> {
  return forwarders(clientMethods, (name, call, rest) => callOn(client, name, call, rest));
}

/** NSX-v: the XML client, with the read-modify-write edits of firewall-edit.ts and dfw-edit.ts. */
export function nsxvManager(
  client: NsxClient,
  retry: ConflictRetry = defaultConflictRetry,
): NetworkManager {
  return {
    ...forwardToClient(client),
    addSectionRule: (call, layer, sectionId, draft) =>
      addSectionRule(client, call, layer, sectionId, draft, retry),
    removeSectionRule: (call, layer, sectionId, ruleId) =>
      removeSectionRule(client, call, layer, sectionId, ruleId, retry),
    getFirewall: (call, contextId) => client.getFirewall(call, contextId),
    replaceFirewallRules: (call, contextId, drafts, generationNumber, answer) =>
      replaceFirewallRules(client, call, contextId, drafts, generationNumber, answer),
    addFirewallRule: (call, contextId, draft, position, answer) =>
      addFirewallRule(client, call, contextId, draft, position, retry, answer),
    removeFirewallRule: (call, contextId, ruleId, answer) =>
      removeFirewallRule(client, call, contextId, ruleId, retry, answer),
  };
}

/**
 * NSX-T: the Policy API client. vShield App's per-port-group firewall has no
 * counterpart (NSX-T's distributed firewall is the security policies, served
 * as sections): its query answers null and its mutations NOT_SUPPORTED,
 * before any call.
 */
export function nsxtManager(client: NsxtClient): NetworkManager {
  return {
    ...forwardToClient(client),
    addSectionRule: (call, layer, sectionId, draft) =>
      client.addSectionRule(call, layer, sectionId, draft),
    removeSectionRule: (call, layer, sectionId, ruleId) =>
      client.removeSectionRule(call, layer, sectionId, ruleId),
    getFirewall: (): Promise<wire.FirewallConfigRecord | null> => Promise.resolve(null),
    replaceFirewallRules: (): Promise<wire.FirewallConfigAnswer> =>
      Promise.reject(new NotSupportedError('updateApplicationFirewall', 'NSX-T')),
    addFirewallRule: (): Promise<wire.FirewallConfigAnswer> =>
      Promise.reject(new NotSupportedError('addApplicationFirewallRule', 'NSX-T')),
    removeFirewallRule: (): Promise<wire.FirewallConfigAnswer> =>
      Promise.reject(new NotSupportedError('removeApplicationFirewallRule', 'NSX-T')),
  };
}

/**
 * `clients.nsx`: each call goes to the manager of the generation found
 * (NSX_API, else asked once: `GET /api/v1/node/version`, a node version
 * NSX-T, any other answer NSX-v; see NsxtClient.probeGeneration). Both clients share the one seam of the upstream `nsx`, so
 * readiness, metrics, the circuit and the concurrency limit stay one.
 */
export interface NsxManagers extends NetworkManager {
  readonly v: NetworkManager;
  readonly t: NetworkManager;
  readonly probe: GenerationProbe<'v' | 't'>;
  /** The seam, for readiness and metrics. */
  readonly seam: UpstreamHttp;
  close(): Promise<void>;
}

export function nsxManagers(
  http: UpstreamHttp,
  config: GatewayConfig['nsx'],
  firewallWaitMs?: number,
): NsxManagers {
  const v = nsxvManager(new NsxClient(http, config, firewallWaitMs));
  const tClient = new NsxtClient(http, config, firewallWaitMs);
  const t = nsxtManager(tClient);
  const probe = new GenerationProbe<'v' | 't'>(config.api, (call) => tClient.probeGeneration(call));
  return {
    v,
    t,
    probe,
    seam: http,
    close: () => http.close(),
    ...forwarders(managerMethods, async (name, call, rest) =>
      callOn((await probe.get(call)) === 't' ? t : v, name, call, rest),
    ),
  };
}

export function createNsxManagers(config: GatewayConfig, hooks: UpstreamHooks = {}): NsxManagers {
  return nsxManagers(
    new UpstreamHttp({
      ...upstreamHttpOptions(config, 'nsx', hooks),
      readErrorBody: readNsxAnyError,
    }),
    config.nsx,
    config.upstreamTimeoutMs,
  );
}
