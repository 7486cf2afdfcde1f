/**
 * Policy API objects translated into the records the network resolvers
 * receive (src/upstreams/nsx/wire.ts, the schema's mappers), and the
 * gateway's drafts into Policy API bodies. Where NSX-T has no counterpart of
 * a field, the record holds null (see docs/generations.md, NSX-T); what only
 * NSX-T tells rides along as each record's `policy` (policy-facts.ts).
 */
import { BadUserInputError } from '../../../errors.ts';
import { isNsxId } from '../ids.ts';
import type { DfwRuleDraft, IpSetDraft, RulePart, ServiceDraft } from '../drafts.ts';
import { badResponse } from '../fields.ts';
import type {
  DfwRuleRecord,
  EdgeRecord,
  FirewallLayerName,
  FirewallSectionRecord,
  IpSetRecord,
  ScopeRecord,
  ServiceRecord,
  VirtualServerRecord,
} from '../wire.ts';
import { childElements, childText, element, textElement, type XmlElement } from '../xml/xml.ts';
import {
  objectList,
  optionalBoolean,
  optionalNumber,
  optionalString,
  readPolicyObject,
  stringList,
  writable,
  type Json,
  type PolicyObject,
} from './wire.ts';

/** The domain of the schema's default scope: NSX-v's `globalroot-0` is NSX-T's `default` domain. */
export const defaultDomain = 'default';

export function domainOfScope(scopeId: string): string {
  return scopeId === 'globalroot-0' ? defaultDomain : scopeId;
}

function domainScope(domain: string): ScopeRecord {
  return { id: domain, name: null, objectTypeName: 'Domain' };
}

// ------------------------------------------------------------ groups as IP sets

/**
 * A Group as an IP set: its addresses are those of its IPAddressExpressions.
 * A group with other membership criteria (tags, VMs, nested paths) is shown
 * with what it has (its IP addresses, possibly none); `ipAddressGroup` tells
 * them apart, so that an update never replaces criteria it cannot show.
 */
export function groupToIpSet(value: unknown, domain: string): IpSetRecord {
  const group = readPolicyObject(value, 'a group');
  const addresses = objectList(group.raw, 'expression')
    .filter((expression) => expression['resource_type'] === 'IPAddressExpression')
    .flatMap((expression) => stringList(expression, 'ip_addresses'));
  return {
    objectId: group.id,
    name: group.displayName ?? group.id,
    description: group.description,
    revision: group.revision,
    scope: domainScope(domain),
    inheritanceAllowed: null,
    xml: null,
    value: addresses.join(','),
    policy: group.facts,
  };
}

/** True when every expression of the group is an IPAddressExpression or an OR between two. */
export function isIpAddressGroup(raw: Json): boolean {
  return objectList(raw, 'expression').every(
    (expression) =>
      expression['resource_type'] === 'IPAddressExpression' ||
      (expression['resource_type'] === 'ConjunctionOperator' &&
        expression['conjunction_operator'] === 'OR'),
  );
}

/** Body of `PUT /infra/domains/{domain}/groups/{id}`: over the group read (with its `_revision`), when there is one. */
export function ipSetGroupBody(draft: IpSetDraft, current: PolicyObject | null): Json {
  const body: Json = current === null ? {} : writable(current.raw);
  body['display_name'] = draft.name;
  if (draft.description === null) delete body['description'];
  else if (draft.description !== undefined) body['description'] = draft.description;
  body['expression'] =
    draft.addresses.length === 0
      ? []
      : [{ resource_type: 'IPAddressExpression', ip_addresses: draft.addresses }];
  return body;
}

// ------------------------------------------------------------ services

/**
 * A Service by its first service entry: an L4PortSetServiceEntry gives the
 * protocol (TCP or UDP) and its ports as one comma-separated value, as NSX-v
 * writes them; an ALG entry its ALG name and ports; ICMP and IGMP entries
 * their protocol. A service of several entries shows the first.
 */
export function serviceToRecord(value: unknown): ServiceRecord {
  const service = readPolicyObject(value, 'a service');
  const entry = objectList(service.raw, 'service_entries')[0];
  let protocol: string | null = null;
  let ports: string | null = null;
  let sourcePorts: string | null = null;
  const joined = (list: string[]) => (list.length === 0 ? null : list.join(','));
  switch (entry?.['resource_type']) {
    case 'L4PortSetServiceEntry':
      protocol = optionalString(entry, 'l4_protocol');
      ports = joined(stringList(entry, 'destination_ports'));
      sourcePorts = joined(stringList(entry, 'source_ports'));
      break;
    case 'ALGTypeServiceEntry':
      protocol = optionalString(entry, 'alg');
      ports = joined(stringList(entry, 'destination_ports'));
      sourcePorts = joined(stringList(entry, 'source_ports'));
      break;
    case 'ICMPTypeServiceEntry':
      protocol = optionalString(entry, 'protocol') === 'ICMPv6' ? 'IPV6ICMP' : 'ICMP';
      break;
    case 'IGMPTypeServiceEntry':
      protocol = 'IGMP';
      break;
    default:
      break;
  }
  return {
    objectId: service.id,
    name: service.displayName ?? service.id,
    description: service.description,
    revision: service.revision,
    scope: null,
    inheritanceAllowed: null,
    xml: null,
    protocol,
    ports,
    sourcePorts,
    policy: service.facts,
  };
}

const l4Protocols = new Set(['TCP', 'UDP']);

/** True when the draft's protocol is one an L4PortSetServiceEntry carries (TCP, UDP). */
export function isL4Protocol(protocol: string): boolean {
  return l4Protocols.has(protocol);
}

function portList(value: string | null | undefined): string[] | undefined {
  if (value === null || value === undefined) return undefined;
  return value
    .split(',')
    .map((port) => port.trim())
    .filter((port) => port !== '');
}

/**
 * Body of `PUT /infra/services/{id}`: one L4PortSetServiceEntry. On an
 * update the first entry, when it is one, keeps its id and what the gateway
 * does not model; ports the draft leaves unset are kept.
 */
export function serviceBody(draft: ServiceDraft, current: PolicyObject | null): Json {
  const body: Json = current === null ? {} : writable(current.raw);
  body['display_name'] = draft.name;
  if (draft.description === null) delete body['description'];
  else if (draft.description !== undefined) body['description'] = draft.description;
  const entries = current === null ? [] : objectList(current.raw, 'service_entries');
  const first = entries[0];
  const entry: Json =
    first?.['resource_type'] === 'L4PortSetServiceEntry'
      ? writable(first)
      : { resource_type: 'L4PortSetServiceEntry', id: 'l4-ports', display_name: 'l4-ports' };
  entry['l4_protocol'] = draft.protocol;
  const ports = portList(draft.ports);
  if (draft.ports === null) delete entry['destination_ports'];
  else if (ports !== undefined) entry['destination_ports'] = ports;
  const sources = portList(draft.sourcePorts);
  if (draft.sourcePorts === null) delete entry['source_ports'];
  else if (sources !== undefined) entry['source_ports'] = sources;
  body['service_entries'] = [entry, ...entries.slice(1)];
  return body;
}

// ------------------------------------------------------------ security policies as sections

/** NSX-T's actions as NSX-v spells them: DROP is NSX-v's deny. */
const actionFromNsxt: Readonly<Record<string, string>> = {
  ALLOW: 'allow',
  DROP: 'deny',
  REJECT: 'reject',
};
const actionToNsxt: Readonly<Record<string, string>> = {
  allow: 'ALLOW',
  deny: 'DROP',
  reject: 'REJECT',
};

/** The Ethernet category holds layer-2 rules; every other category layer-3 ones. */
export function layerOfPolicy(raw: Json): FirewallLayerName {
  return optionalString(raw, 'category') === 'Ethernet' ? 'LAYER2' : 'LAYER3';
}

const groupPath = /^\/infra\/domains\/[^/]+\/groups\/[^/]+$/;
const servicePath = /^\/infra\/services\/[^/]+$/;

function pathType(value: string): string {
  if (groupPath.test(value)) return 'Group';
  if (servicePath.test(value)) return 'Service';
  if (value.startsWith('/')) return 'Path';
  return value.includes(':') ? 'Ipv6Address' : 'Ipv4Address';
}

/**
 * A rule's list of group paths, IP addresses or service paths as the
 * element NSX-v's rules carry (`<sources excluded="false"><source><type>
 * Group</type><value>/infra/…</value></source></sources>`); null for ANY.
 */
function listElement(
  name: string,
  item: string,
  values: string[],
  excluded: boolean | null,
): XmlElement | null {
  if (values.length === 0 || values.some((value) => value.toUpperCase() === 'ANY')) return null;
  return element(
    name,
    excluded === null ? {} : { excluded: String(excluded) },
    values.map((value) =>
      element(item, {}, [textElement('type', pathType(value)), textElement('value', value)]),
    ),
  );
}

export function ruleToRecord(raw: Json): DfwRuleRecord {
  const rule = readPolicyObject(raw, 'a rule');
  const action = optionalString(raw, 'action') ?? 'ALLOW';
  return {
    id: rule.id,
    name: rule.displayName,
    action: actionFromNsxt[action] ?? action.toLowerCase(),
    disabled: optionalBoolean(raw, 'disabled') ?? false,
    logged: optionalBoolean(raw, 'logged') ?? false,
    notes: optionalString(raw, 'notes'),
    sources: listElement(
      'sources',
      'source',
      stringList(raw, 'source_groups'),
      optionalBoolean(raw, 'sources_excluded') ?? false,
    ),
    destinations: listElement(
      'destinations',
      'destination',
      stringList(raw, 'destination_groups'),
      optionalBoolean(raw, 'destinations_excluded') ?? false,
    ),
    services: listElement('services', 'service', stringList(raw, 'services'), null),
    appliedToList: listElement('appliedToList', 'appliedTo', stringList(raw, 'scope'), null),
    policy: rule.facts,
  };
}

/** Rules in the manager's order of evaluation: by sequence number. */
export function sortedRules(rules: Json[]): Json[] {
  const sequence = (rule: Json) => optionalNumber(rule, 'sequence_number') ?? 0;
  return [...rules].sort((a, b) => sequence(a) - sequence(b));
}

/** A security policy as a section: its `_revision` is the generation number that guards changes. */
export function policyToSection(policy: PolicyObject, rules: Json[]): FirewallSectionRecord {
  if (policy.revision === null) throw badResponse('a security policy without _revision');
  return {
    id: policy.id,
    name: policy.displayName ?? policy.id,
    layer: layerOfPolicy(policy.raw),
    generationNumber: String(policy.revision),
    rules: sortedRules(rules).map(ruleToRecord),
    policy: policy.facts,
  };
}

const ipLiteral = /^[0-9A-Fa-f:.]+(\/\d{1,3})?(-[0-9A-Fa-f:.]+)?$/;
const policyPathPattern = /^\/[A-Za-z0-9._:/-]{1,1000}$/;

/**
 * The values of one rule part (`sources`, …) as NSX-T list entries: a path
 * stays as it is; an address (Ipv4Address / Ipv6Address) is sent as the
 * address; any other value is an id, of a group (`/infra/domains/default/
 * groups/{id}`: NSX-v's IPSet and SecurityGroup become groups) or, in
 * `services`, of a service (`/infra/services/{id}`).
 */
function partValues(part: RulePart | undefined, kind: 'group' | 'service', argument: string) {
  if (part === undefined) return ['ANY'];
  const values = childElements(part.xml).map((item) => {
    const value = (childText(item, 'value') ?? '').trim();
    const type = (childText(item, 'type') ?? '').trim();
    if (value.startsWith('/')) {
      if (!policyPathPattern.test(value) || value.split('/').includes('..')) {
        throw new BadUserInputError(`${argument}: ${JSON.stringify(value)} is not a policy path.`);
      }
      return value;
    }
    if (
      type === 'Ipv4Address' ||
      type === 'Ipv6Address' ||
      (type === '' && ipLiteral.test(value))
    ) {
      if (!ipLiteral.test(value)) {
        throw new BadUserInputError(`${argument}: ${JSON.stringify(value)} is not an address.`);
      }
      return value;
    }
    if (!isNsxId(value)) {
      throw new BadUserInputError(`${argument}: ${JSON.stringify(value)} is not an id or a path.`);
    }
    return kind === 'service'
      ? `/infra/services/${value}`
      : `/infra/domains/${defaultDomain}/groups/${value}`;
  });
  return values.length === 0 ? ['ANY'] : values;
}

function excludedOf(part: RulePart | undefined): boolean {
  return part?.xml.attributes['excluded']?.trim().toLowerCase() === 'true';
}

/** A new Rule of a security policy, from NSX-v's rule draft. */
export function ruleBody(draft: DfwRuleDraft, id: string, sequenceNumber: number): Json {
  const body: Json = {
    resource_type: 'Rule',
    id,
    display_name: draft.name ?? id,
    action: actionToNsxt[draft.action] ?? draft.action.toUpperCase(),
    disabled: draft.disabled,
    logged: draft.logged,
    source_groups: partValues(draft.sources, 'group', 'rule.sources'),
    sources_excluded: excludedOf(draft.sources),
    destination_groups: partValues(draft.destinations, 'group', 'rule.destinations'),
    destinations_excluded: excludedOf(draft.destinations),
    services: partValues(draft.services, 'service', 'rule.services'),
    scope: appliedToValues(draft.appliedToList),
    sequence_number: sequenceNumber,
  };
  if (draft.notes !== undefined) body['notes'] = draft.notes;
  return body;
}

/** NSX-v's `DISTRIBUTED_FIREWALL` (the whole firewall) is NSX-T's ANY. */
function appliedToValues(part: RulePart | undefined): string[] {
  if (part === undefined) return ['ANY'];
  const everywhere = childElements(part.xml).some(
    (item) => (childText(item, 'type') ?? '').trim() === 'DISTRIBUTED_FIREWALL',
  );
  return everywhere ? ['ANY'] : partValues(part, 'group', 'rule.appliedToList');
}

// ------------------------------------------------------------ Tier-1 gateways as edges, virtual servers

/**
 * A Tier-1 gateway where the schema has an edge: NSX-T's Tier-1 gateway
 * carries the services NSX-v's services gateway did (load balancer, NAT,
 * gateway firewall). It has no deployment state or datacenter of its own.
 */
export function tier1ToEdge(value: unknown): EdgeRecord {
  const tier1 = readPolicyObject(value, 'a Tier-1 gateway');
  return {
    id: tier1.id,
    name: tier1.displayName,
    edgeType: 'tier1',
    status: null,
    datacenterName: null,
    policy: tier1.facts,
  };
}

export function lastSegment(path: string | null): string | null {
  if (path === null) return null;
  const last = path.split('/').at(-1) ?? '';
  return last === '' ? null : last;
}

/** The schema's protocol (lower case, as VirtualServerRecord holds it) of each application profile type. */
const protocolOfProfileType: Readonly<Record<string, string>> = {
  LBHttpProfile: 'http',
  LBFastTcpProfile: 'tcp',
  LBFastUdpProfile: 'udp',
};

export function protocolOfProfile(resourceType: string | null): string | null {
  return resourceType === null ? null : (protocolOfProfileType[resourceType] ?? null);
}

export function virtualServerToRecord(server: PolicyObject, protocol: string): VirtualServerRecord {
  const raw = server.raw;
  const ipAddress = optionalString(raw, 'ip_address');
  if (ipAddress === null) throw badResponse('a virtual server without ip_address');
  return {
    virtualServerId: server.id,
    xml: null,
    name: server.displayName ?? server.id,
    description: server.description,
    enabled: optionalBoolean(raw, 'enabled') ?? true,
    ipAddress,
    protocol,
    port: stringList(raw, 'ports').join(','),
    connectionLimit: optionalNumber(raw, 'max_concurrent_connections'),
    connectionRateLimit: optionalNumber(raw, 'max_new_connection_rate'),
    applicationProfileId: lastSegment(optionalString(raw, 'application_profile_path')),
    defaultPoolId: lastSegment(optionalString(raw, 'pool_path')),
    policy: server.facts,
  };
}
