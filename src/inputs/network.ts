/**
 * The network mutations' and queries' arguments (NSX), checked before any
 * call to the manager: each check answers the value or draft the client
 * writes, or throws BAD_USER_INPUT naming the argument.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type {
  DistributedFirewallRuleInput,
  FirewallRuleInput,
  IpSetInput,
  ServiceInput,
  VirtualServerInput,
} from '../generated/graphql.ts';
import type {
  DfwRuleDraft,
  IpSetDraft,
  RuleDraft,
  RulePart,
  ServiceDraft,
  VirtualServerDraft,
} from '../upstreams/nsx/drafts.ts';
import { jsonToElement, XmlJsonError } from '../upstreams/nsx/xml/xml-json.ts';
import { isXmlText } from '../upstreams/nsx/xml/xml.ts';
import {
  checkAtLeast,
  checkLength,
  checkNotBlank,
  checkOneOf,
  checkPattern,
  optional,
  refuse,
} from './check.ts';
import { isAddress, isPortList } from './network-addresses.ts';
import { idPattern } from '../upstreams/nsx/ids.ts';

const tokenPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const longestName = 256;
const longestText = 4096;

/**
 * Application protocols of NSX services. Port protocols take `ports` and
 * `sourcePorts`: TCP and UDP a list of ports and ranges, every other one a
 * single port number (vShield guide; PowerNSX enforces it; a manager answers
 * 400 otherwise). ICMP ones take an ICMP type name in `ports`; IGMP takes
 * none. TFTP is left out: no source confirms it as a service protocol.
 */
const listProtocols = new Set(['TCP', 'UDP']);
const portProtocols = new Set([
  ...listProtocols,
  'FTP',
  'MS_RPC_TCP',
  'MS_RPC_UDP',
  'SUN_RPC_TCP',
  'SUN_RPC_UDP',
  'ORACLE_TNS',
  'NBNS_BROADCAST',
  'NBDG_BROADCAST',
]);
const icmpProtocols = new Set(['ICMP', 'IPV6ICMP']);
const portlessProtocols = new Set(['IGMP']);
export const serviceProtocols: readonly string[] = [
  ...portProtocols,
  ...icmpProtocols,
  ...portlessProtocols,
];

const virtualServerProtocols = ['HTTP', 'HTTPS', 'TCP', 'UDP'] as const;
const dfwActions = ['allow', 'deny', 'reject'] as const;

/** An NSX object id, scope id, edge id or rule id: safe as one path segment. */
export function checkNsxId(value: string, argument: string): string {
  return checkPattern(
    value,
    idPattern,
    argument,
    'must be an id such as ipset-12, globalroot-0 or edge-1 (letters, digits, ".", "_", ":" and "-", at most 128)',
  );
}

function checkName(value: string, argument: string): string {
  checkNotBlank(value, argument);
  return checkText(checkLength(value, longestName, argument), argument);
}

function checkText(value: string, argument: string): string {
  checkLength(value, longestText, argument);
  if (!isXmlText(value)) refuse(argument, `${argument} holds a control character.`);
  return value;
}

function checkToken(value: string, argument: string, example: string): string {
  return checkPattern(value, tokenPattern, argument, `must be a word such as ${example}`);
}

function checkAddresses(values: readonly string[], argument: string): string[] {
  if (values.length === 0) refuse(argument, `${argument} must hold at least one address.`);
  return values.map((raw, i) => {
    const value = raw.trim();
    if (value === '' || !isAddress(value)) {
      refuse(
        `${argument}[${i}]`,
        `${argument}[${i}] must be an IP address, a range (10.0.0.1-10.0.0.9) or a CIDR (10.0.0.0/24); got ${JSON.stringify(raw)}.`,
      );
    }
    return value;
  });
}

function checkPorts(value: string, argument: string): string {
  if (!isPortList(value)) {
    refuse(
      argument,
      `${argument} must be ports 1-65535 and ranges, comma-separated, e.g. "80,443,8000-8080"; got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

function checkSinglePort(value: string, argument: string, protocol: string): string {
  if (!/^\d{1,5}$/.test(value) || !isPortList(value)) {
    refuse(
      argument,
      `${argument} must be one port number (1-65535) for ${protocol}: only TCP and UDP take lists and ranges; got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

export function checkIpSetInput(input: IpSetInput, argument = 'input'): IpSetDraft {
  return {
    name: checkName(input.name, `${argument}.name`),
    description: optional(input.description, (text) => checkText(text, `${argument}.description`)),
    addresses: checkAddresses(input.addresses, `${argument}.addresses`),
    inheritanceAllowed: input.inheritanceAllowed ?? undefined,
  };
}

function checkServicePorts(
  protocol: string,
  { ports, sourcePorts }: Pick<ServiceInput, 'ports' | 'sourcePorts'>,
  argument: string,
): void {
  if (portProtocols.has(protocol)) {
    const check = listProtocols.has(protocol)
      ? checkPorts
      : (value: string, name: string) => checkSinglePort(value, name, protocol);
    optional(ports, (value) => check(value, `${argument}.ports`));
    optional(sourcePorts, (value) => check(value, `${argument}.sourcePorts`));
    return;
  }
  if (typeof sourcePorts === 'string') {
    refuse(
      `${argument}.sourcePorts`,
      `${argument}.sourcePorts is only for port protocols, not ${protocol}.`,
    );
  }
  if (typeof ports !== 'string') return;
  if (portlessProtocols.has(protocol)) refuse(`${argument}.ports`, `${protocol} takes no ports.`);
  checkToken(ports, `${argument}.ports`, 'echo-request (an ICMP type)');
}

export function checkServiceInput(input: ServiceInput, argument = 'input'): ServiceDraft {
  const protocol = checkOneOf(
    input.protocol.trim().toUpperCase(),
    serviceProtocols,
    `${argument}.protocol`,
  );
  checkServicePorts(protocol, input, argument);
  return {
    name: checkName(input.name, `${argument}.name`),
    description: optional(input.description, (text) => checkText(text, `${argument}.description`)),
    protocol,
    ports: input.ports,
    sourcePorts: input.sourcePorts,
    inheritanceAllowed: input.inheritanceAllowed ?? undefined,
  };
}

export function checkVirtualServerInput(
  input: VirtualServerInput,
  argument = 'input',
): VirtualServerDraft {
  const protocol = checkOneOf(
    input.protocol.trim().toUpperCase(),
    virtualServerProtocols,
    `${argument}.protocol`,
  );
  if (!isIPv4(input.ipAddress) && !isIPv6(input.ipAddress)) {
    refuse(
      `${argument}.ipAddress`,
      `${argument}.ipAddress must be an IPv4 or IPv6 address; got ${JSON.stringify(input.ipAddress)}.`,
    );
  }
  const id = (name: 'applicationProfileId' | 'defaultPoolId') =>
    optional(input[name], (value) => checkNsxId(value, `${argument}.${name}`)) ?? null;
  const count = (name: 'connectionLimit' | 'connectionRateLimit') =>
    optional(input[name], (value) => checkAtLeast(value, 0, `${argument}.${name}`)) ?? null;
  return {
    name: checkName(input.name, `${argument}.name`),
    description:
      optional(input.description, (text) => checkText(text, `${argument}.description`)) ?? null,
    enabled: input.enabled ?? null,
    ipAddress: input.ipAddress,
    protocol: protocol.toLowerCase(),
    port: checkPorts(input.port, `${argument}.port`),
    connectionLimit: count('connectionLimit'),
    connectionRateLimit: count('connectionRateLimit'),
    applicationProfileId: id('applicationProfileId'),
    defaultPoolId: id('defaultPoolId'),
    accelerationEnabled: input.accelerationEnabled ?? null,
  };
}

function checkPart(name: string, value: unknown, argument: string): RulePart | null | undefined {
  if (value === undefined || value === null) return value;
  try {
    return { json: value, xml: jsonToElement(name, value) };
  } catch (error) {
    if (!(error instanceof XmlJsonError)) throw error;
    return refuse(
      `${argument}.${name}`,
      `${argument}.${error.message} (see the FirewallRule type for the JSON form).`,
    );
  }
}

/**
 * No confirmed example of the vShield App firewall has a `<service>` under a
 * rule: applications go under `destination/application/applicationSetId`
 * (the API guide's examples). So the gateway writes none; `service: null`
 * still removes one a rule already has.
 */
function refuseService(value: unknown, argument: string): void {
  if (value === null || value === undefined) return;
  refuse(
    `${argument}.service`,
    `${argument}.service cannot be written: no confirmed vShield App example has a <service> element under a rule. Name the service as destination: { application: { applicationSetId: "application-…" } } instead.`,
  );
}

export function checkRuleInput(input: FirewallRuleInput, argument = 'rule'): RuleDraft {
  refuseService(input.service, argument);
  return {
    id: optional(input.id, (id) => checkNsxId(id, `${argument}.id`)) ?? undefined,
    layer: input.layer ?? 'LAYER3',
    action: checkToken(input.action.trim(), `${argument}.action`, 'allow or deny'),
    disabled: input.disabled ?? false,
    logged: input.logged ?? false,
    precedence: checkToken(
      input.precedence ?? 'default',
      `${argument}.precedence`,
      'default or high',
    ),
    notes: optional(input.notes, (text) => checkText(text, `${argument}.notes`)),
    source: checkPart('source', input.source, argument),
    destination: checkPart('destination', input.destination, argument),
    service: checkPart('service', input.service, argument),
  };
}

/** A whole ruleset: every rule checked, no id twice. */
export function checkRuleInputs(inputs: readonly FirewallRuleInput[]): RuleDraft[] {
  const drafts = inputs.map((input, i) => checkRuleInput(input, `rules[${i}]`));
  const seen = new Set<string>();
  drafts.forEach((draft, i) => {
    if (draft.id === undefined) return;
    if (seen.has(draft.id)) refuse(`rules[${i}].id`, `rules[${i}].id ${draft.id} appears twice.`);
    seen.add(draft.id);
  });
  return drafts;
}

/** A rule for a distributed firewall section; its JSON parts must have an XML form. */
export function checkDfwRuleInput(
  input: DistributedFirewallRuleInput,
  argument = 'rule',
): DfwRuleDraft {
  const action = checkOneOf(input.action.trim().toLowerCase(), dfwActions, `${argument}.action`);
  const part = (name: 'sources' | 'destinations' | 'services' | 'appliedToList') =>
    checkPart(name, input[name], argument) ?? undefined;
  return {
    name: optional(input.name, (name) => checkName(name, `${argument}.name`)) ?? undefined,
    action,
    disabled: input.disabled ?? false,
    logged: input.logged ?? false,
    notes: optional(input.notes, (text) => checkText(text, `${argument}.notes`)) ?? undefined,
    sources: part('sources'),
    destinations: part('destinations'),
    services: part('services'),
    appliedToList: part('appliedToList'),
  };
}

export function checkPosition(position: number | null | undefined): number | undefined {
  return optional(position, (value) => checkAtLeast(value, 0, 'position')) ?? undefined;
}

/** A generation number as `applicationFirewall` gives it; quotes, if pasted from an ETag, are dropped. */
export function checkGenerationNumber(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const bare = value.trim().replace(/^"(.*)"$/, '$1');
  return checkPattern(
    bare,
    /^[A-Za-z0-9._:-]{1,128}$/,
    'generationNumber',
    'must be the value applicationFirewall answers, e.g. "1312802020950"',
  );
}
