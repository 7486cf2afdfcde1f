/**
 * A large, realistic firewall ruleset, for load tests of megabyte-sized
 * configurations (`--nsx-firewall-bytes` of the simulator CLI): layer-3 rules
 * with IP sets, addresses, port groups and services on both sides, notes
 * with change tickets and escaped characters, some with an applied-to list,
 * and the usual trailing layer-2 rule. Deterministic: the same size gives the
 * same rules.
 */
import type { NsxState } from './seed.ts';
import { el, leaf, type SimElement } from './sim-xml.ts';

const containers = ['ipset-3', 'ipset-4', 'ipset-7', 'domain-c7', 'dvportgroup-63'];
const services = ['application-161', 'application-400', 'application-401', 'application-402'];
const tiers = ['web', 'app', 'db', 'mgmt', 'backup', 'monitoring'];

function address(k: number): SimElement {
  return k % 3 === 0
    ? el('address', [leaf('ipAddress', `10.${k % 250}.${(k * 7) % 250}.0/24`)])
    : el('address', [leaf('containerId', containers[k % containers.length] ?? 'ipset-3')]);
}

function rule(id: number): SimElement {
  const from = tiers[id % tiers.length] ?? 'web';
  const to = tiers[(id + 1) % tiers.length] ?? 'app';
  const kids = [
    leaf('action', id % 7 === 0 ? 'deny' : 'allow'),
    leaf('logged', String(id % 2 === 0)),
    leaf('notes', `${from} tier to ${to} tier & back <CHG-${100000 + id}> "rule ${id}"`),
    el('source', [address(id), address(id + 1), leaf('exclude', 'false')]),
    el('destination', [
      address(id + 2),
      el('application', [leaf('applicationSetId', services[id % services.length] ?? '')]),
    ]),
  ];
  if (id % 5 === 0) {
    kids.push(
      el('appliedToList', [
        el('appliedTo', [
          leaf('value', 'dvportgroup-63'),
          leaf('type', 'DistributedVirtualPortgroup'),
        ]),
      ]),
    );
  }
  return el('layer3FirewallRule', kids, [
    ['disabled', String(id % 11 === 0)],
    ['precedence', id % 13 === 0 ? 'high' : 'default'],
    ['id', String(id)],
  ]);
}

/** Bytes one generated rule takes in the simulator's indented output, about. */
const bytesPerRule = 760;

/**
 * A `<firewallConfiguration>` of about `bytes` bytes as the simulator writes
 * it; its rule ids start at `firstId`. Answers the element and the next free id.
 */
export function largeFirewallConfiguration(
  contextId: string,
  bytes: number,
  firstId: number,
): { configuration: SimElement; nextId: number } {
  const count = Math.max(1, Math.round(bytes / bytesPerRule));
  const rules = Array.from({ length: count }, (_, i) => rule(firstId + i));
  const layer2 = el(
    'layer2FirewallRule',
    [leaf('action', 'allow'), leaf('logged', 'false'), el('notes'), el('destination')],
    [
      ['disabled', 'false'],
      ['precedence', 'default'],
      ['id', String(firstId + count)],
    ],
  );
  return {
    configuration: el('firewallConfiguration', [...rules, layer2], [['contextId', contextId]]),
    nextId: firstId + count + 1,
  };
}

/** The port group whose ruleset `withLargeFirewall` replaces. */
export const largeFirewallContext = 'dvportgroup-63';

/** `state` with the port group's ruleset replaced by a generated one of about `bytes` bytes. */
export function withLargeFirewall(state: NsxState, bytes: number): NsxState {
  const { configuration, nextId } = largeFirewallConfiguration(
    largeFirewallContext,
    bytes,
    state.nextRuleId,
  );
  return {
    ...state,
    firewalls: state.firewalls.map((firewall) =>
      firewall.contextId === largeFirewallContext ? { ...firewall, configuration } : firewall,
    ),
    nextRuleId: nextId,
  };
}
