/**
 * Checks of the network mutations' arguments, made before any call to the
 * manager: each answers a draft ready to be written, or throws
 * BadUserInputError naming the argument.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { BadUserInputError } from '../../errors.ts';
import type {
  DistributedFirewallRuleInput,
  FirewallRuleInput,
  IpSetInput,
  ServiceInput,
  VirtualServerInput,
} from '../../generated/graphql.ts';
import type {
  DfwRuleDraft,
  IpSetDraft,
  RuleDraft,
  RulePart,
  ServiceDraft,
  VirtualServerDraft,
} from './drafts.ts';
import { jsonToElement, XmlJsonError } from './xml-json.ts';
import { isXmlText } from './xml.ts';

const idPattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
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

const virtualServerProtocols = new Set(['HTTP', 'HTTPS', 'TCP', 'UDP']);

/** An NSX object id, scope id, edge id or rule id: safe as one path segment. */
export function checkId(value: string, argument: string): string {
  if (!idPattern.test(value)) {
    throw new BadUserInputError(
      `${argument} must be an id such as ipset-12, globalroot-0 or edge-1 (letters, digits, ".", "_", ":" and "-", at most 128).`,
      argument,
    );
  }
  return value;
}

function checkName(value: string, argument: string): string {
  if (value.trim() === '') throw new BadUserInputError(`${argument} must not be empty.`, argument);
  if (value.length > longestName) {
    throw new BadUserInputError(`${argument} is longer than ${longestName} characters.`, argument);
  }
  return checkText(value, argument);
}

function checkText(value: string, argument: string): string {
  if (value.length > longestText) {
    throw new BadUserInputError(`${argument} is longer than ${longestText} characters.`, argument);
  }
  if (!isXmlText(value)) {
    throw new BadUserInputError(`${argument} holds a control character.`, argument);
  }
  return value;
}

function optionalText(
  value: string | null | undefined,
  argument: string,
): string | null | undefined {
  return typeof value === 'string' ? checkText(value, argument) : value;
}

function checkToken(value: string, argument: string, example: string): string {
  if (!tokenPattern.test(value)) {
    throw new BadUserInputError(`${argument} must be a word such as ${example}.`, argument);
  }
  return value;
}

// ---------------------------------------------------------------- addresses

function ipv4Number(address: string): number {
  return address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

function ipv6Number(address: string): bigint {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const expand = (list: string[]) =>
    list.flatMap((group) => {
      if (!group.includes('.')) return [group];
      const v4 = ipv4Number(group);
      return [(v4 >>> 16).toString(16), (v4 & 0xffff).toString(16)];
    });
  const left = expand(groups(head));
  const right = tail === undefined ? [] : expand(groups(tail));
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((sum, group) => sum * 65536n + BigInt(parseInt(group, 16)), 0n);
}

/** An address, a range `a-b` (same family, a <= b) or a CIDR. */
export function isAddress(value: string): boolean {
  if (isIPv4(value) || isIPv6(value)) return true;
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(value);
  if (cidr !== null) {
    const [, address = '', bits = ''] = cidr;
    return (
      (isIPv4(address) && Number(bits) <= 32) ||
      (isIPv6(address) && !address.includes('%') && Number(bits) <= 128)
    );
  }
  const range = value.split('-');
  if (range.length !== 2) return false;
  const [from = '', to = ''] = range;
  if (isIPv4(from) && isIPv4(to)) return ipv4Number(from) <= ipv4Number(to);
  if (isIPv6(from) && isIPv6(to) && !value.includes('%')) return ipv6Number(from) <= ipv6Number(to);
  return false;
}

function checkAddresses(values: readonly string[], argument: string): string[] {
  if (values.length === 0) {
    throw new BadUserInputError(`${argument} must hold at least one address.`, argument);
  }
  return values.map((raw, i) => {
    const value = raw.trim();
    if (value === '' || !isAddress(value)) {
      throw new BadUserInputError(
        `${argument}[${i}] must be an IP address, a range (10.0.0.1-10.0.0.9) or a CIDR (10.0.0.0/24); got ${JSON.stringify(raw)}.`,
        `${argument}[${i}]`,
      );
    }
    return value;
  });
}

// ---------------------------------------------------------------- ports

/** `80`, `443,8000-8080`: ports 1-65535 and ranges low-high, comma-separated. */
export function isPortList(value: string): boolean {
  if (!/^\d{1,5}(-\d{1,5})?(,\d{1,5}(-\d{1,5})?)*$/.test(value)) return false;
  return value.split(',').every((item) => {
    const [low = 0, high = low] = item.split('-').map(Number);
    return low >= 1 && high <= 65535 && low <= high;
  });
}

function checkPorts(value: string, argument: string): string {
  if (!isPortList(value)) {
    throw new BadUserInputError(
      `${argument} must be ports 1-65535 and ranges, comma-separated, e.g. "80,443,8000-8080"; got ${JSON.stringify(value)}.`,
      argument,
    );
  }
  return value;
}

function checkSinglePort(value: string, argument: string, protocol: string): string {
  if (!/^\d{1,5}$/.test(value) || !isPortList(value)) {
    throw new BadUserInputError(
      `${argument} must be one port number (1-65535) for ${protocol}: only TCP and UDP take lists and ranges; got ${JSON.stringify(value)}.`,
      argument,
    );
  }
  return value;
}

// ---------------------------------------------------------------- inputs

export function checkIpSetInput(input: IpSetInput, argument = 'input'): IpSetDraft {
  return {
    name: checkName(input.name, `${argument}.name`),
    description: optionalText(input.description, `${argument}.description`),
    addresses: checkAddresses(input.addresses, `${argument}.addresses`),
    inheritanceAllowed: input.inheritanceAllowed ?? undefined,
  };
}

export function checkServiceInput(input: ServiceInput, argument = 'input'): ServiceDraft {
  const protocol = input.protocol.trim().toUpperCase();
  if (!serviceProtocols.includes(protocol)) {
    throw new BadUserInputError(
      `${argument}.protocol must be one of ${serviceProtocols.join(', ')}; got ${JSON.stringify(input.protocol)}.`,
      `${argument}.protocol`,
    );
  }
  const { ports, sourcePorts } = input;
  if (portProtocols.has(protocol)) {
    const check = listProtocols.has(protocol)
      ? checkPorts
      : (value: string, name: string) => checkSinglePort(value, name, protocol);
    if (typeof ports === 'string') check(ports, `${argument}.ports`);
    if (typeof sourcePorts === 'string') check(sourcePorts, `${argument}.sourcePorts`);
  } else {
    if (typeof sourcePorts === 'string') {
      throw new BadUserInputError(
        `${argument}.sourcePorts is only for port protocols, not ${protocol}.`,
        `${argument}.sourcePorts`,
      );
    }
    if (typeof ports === 'string') {
      if (portlessProtocols.has(protocol)) {
        throw new BadUserInputError(`${protocol} takes no ports.`, `${argument}.ports`);
      }
      checkToken(ports, `${argument}.ports`, 'echo-request (an ICMP type)');
    }
  }
  return {
    name: checkName(input.name, `${argument}.name`),
    description: optionalText(input.description, `${argument}.description`),
    protocol,
    ports,
    sourcePorts,
    inheritanceAllowed: input.inheritanceAllowed ?? undefined,
  };
}

function checkCount(value: number | null | undefined, argument: string): number | null {
  if (value === null || value === undefined) return null;
  if (value < 0) throw new BadUserInputError(`${argument} must be 0 or more.`, argument);
  return value;
}

export function checkVirtualServerInput(
  input: VirtualServerInput,
  argument = 'input',
): VirtualServerDraft {
  const protocol = input.protocol.trim().toUpperCase();
  if (!virtualServerProtocols.has(protocol)) {
    throw new BadUserInputError(
      `${argument}.protocol must be HTTP, HTTPS, TCP or UDP; got ${JSON.stringify(input.protocol)}.`,
      `${argument}.protocol`,
    );
  }
  if (!isIPv4(input.ipAddress) && !isIPv6(input.ipAddress)) {
    throw new BadUserInputError(
      `${argument}.ipAddress must be an IPv4 or IPv6 address; got ${JSON.stringify(input.ipAddress)}.`,
      `${argument}.ipAddress`,
    );
  }
  const optionalId = (value: string | null | undefined, name: string) =>
    value === null || value === undefined ? null : checkId(value, `${argument}.${name}`);
  return {
    name: checkName(input.name, `${argument}.name`),
    description: optionalText(input.description, `${argument}.description`) ?? null,
    enabled: input.enabled ?? null,
    ipAddress: input.ipAddress,
    protocol: protocol.toLowerCase(),
    port: checkPorts(input.port, `${argument}.port`),
    connectionLimit: checkCount(input.connectionLimit, `${argument}.connectionLimit`),
    connectionRateLimit: checkCount(input.connectionRateLimit, `${argument}.connectionRateLimit`),
    applicationProfileId: optionalId(input.applicationProfileId, 'applicationProfileId'),
    defaultPoolId: optionalId(input.defaultPoolId, 'defaultPoolId'),
    accelerationEnabled: input.accelerationEnabled ?? null,
  };
}

function checkPart(name: string, value: unknown, argument: string): RulePart | null | undefined {
  if (value === undefined || value === null) return value;
  try {
    return { json: value, xml: jsonToElement(name, value) };
  } catch (error) {
    if (!(error instanceof XmlJsonError)) throw error;
    throw new BadUserInputError(
      `${argument}.${error.message} (see the FirewallRule type for the JSON form).`,
      `${argument}.${name}`,
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
  throw new BadUserInputError(
    `${argument}.service cannot be written: no confirmed vShield App example has a <service> element under a rule. Name the service as destination: { application: { applicationSetId: "application-…" } } instead.`,
    `${argument}.service`,
  );
}

export function checkRuleInput(input: FirewallRuleInput, argument = 'rule'): RuleDraft {
  refuseService(input.service, argument);
  const id = input.id ?? undefined;
  const precedence = input.precedence ?? 'default';
  return {
    id: id === undefined ? undefined : checkId(id, `${argument}.id`),
    layer: input.layer ?? 'LAYER3',
    action: checkToken(input.action.trim(), `${argument}.action`, 'allow or deny'),
    disabled: input.disabled ?? false,
    logged: input.logged ?? false,
    precedence: checkToken(precedence, `${argument}.precedence`, 'default or high'),
    notes: optionalText(input.notes, `${argument}.notes`),
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
    if (seen.has(draft.id)) {
      throw new BadUserInputError(`rules[${i}].id ${draft.id} appears twice.`, `rules[${i}].id`);
    }
    seen.add(draft.id);
  });
  return drafts;
}

const dfwActions = new Set(['allow', 'deny', 'reject']);

/** A rule for a distributed firewall section; its JSON parts must have an XML form. */
export function checkDfwRuleInput(
  input: DistributedFirewallRuleInput,
  argument = 'rule',
): DfwRuleDraft {
  const action = input.action.trim().toLowerCase();
  if (!dfwActions.has(action)) {
    throw new BadUserInputError(
      `${argument}.action must be allow, deny or reject; got ${JSON.stringify(input.action)}.`,
      `${argument}.action`,
    );
  }
  const part = (name: 'sources' | 'destinations' | 'services' | 'appliedToList') =>
    checkPart(name, input[name], argument) ?? undefined;
  const name = input.name ?? undefined;
  return {
    name: name === undefined ? undefined : checkName(name, `${argument}.name`),
    action,
    disabled: input.disabled ?? false,
    logged: input.logged ?? false,
    notes: optionalText(input.notes, `${argument}.notes`) ?? undefined,
    sources: part('sources'),
    destinations: part('destinations'),
    services: part('services'),
    appliedToList: part('appliedToList'),
  };
}

export function checkPosition(position: number | null | undefined): number | undefined {
  if (position === null || position === undefined) return undefined;
  if (position < 0) throw new BadUserInputError('position must be 0 or more.', 'position');
  return position;
}

/** A generation number as `applicationFirewall` gives it; quotes, if pasted from an ETag, are dropped. */
export function checkGenerationNumber(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const bare = value.trim().replace(/^"(.*)"$/, '$1');
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(bare)) {
    throw new BadUserInputError(
      'generationNumber must be the value applicationFirewall answers, e.g. "1312802020950".',
      'generationNumber',
    );
  }
  return bare;
}
