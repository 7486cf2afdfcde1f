/**
 * The simulated NSX-T manager's objects, as the Policy API stores them, and
 * the seed a fresh simulator starts with: the same lab as the NSX-v
 * simulator's seed in the Policy API's shapes (groups of IP addresses, L4
 * services, one security policy with a few rules, two Tier-1 gateways, a
 * load balancer service on one of them with a virtual server, and the
 * manager's default application profiles).
 */
import { randomUUID } from 'node:crypto';

/** One stored object, exactly as GET answers it. */
export type PolicyObject = Record<string, unknown>;

export interface SecurityPolicyEntry {
  /** The policy without its `rules` (GET adds them). */
  policy: PolicyObject;
  rules: Map<string, PolicyObject>;
}

export interface NsxtDomain {
  groups: Map<string, PolicyObject>;
  securityPolicies: Map<string, SecurityPolicyEntry>;
}

export interface NsxtState {
  domains: Map<string, NsxtDomain>;
  services: Map<string, PolicyObject>;
  virtualServers: Map<string, PolicyObject>;
  /** LBServices (`/infra/lb-services/{id}`), each on a Tier-1 by `connectivity_path`. */
  lbServices: Map<string, PolicyObject>;
  /** Application profiles (`/infra/lb-app-profiles/{id}`): LBHttpProfile, LBFastTcpProfile, LBFastUdpProfile. */
  appProfiles: Map<string, PolicyObject>;
  tier1s: Map<string, PolicyObject>;
  /** Next system-assigned `rule_id`. */
  nextRuleId: number;
}

export interface Housekeeping {
  id: string;
  resourceType: string;
  parentPath: string;
  user: string;
  /** The stored object this one replaces, if any (keeps creation fields, moves `_revision` on). */
  previous?: PolicyObject | undefined;
  systemOwned?: boolean;
}

/** The fields the manager sets on every Policy object it stores. */
export function housekeeping(body: PolicyObject, keep: Housekeeping): PolicyObject {
  const now = Date.now();
  const previous = keep.previous;
  const path = `${keep.parentPath === '/' ? '' : keep.parentPath}/${relativeSegment(keep.resourceType)}/${keep.id}`;
  const revision = previous === undefined ? 0 : Number(previous['_revision']) + 1;
  const stored: PolicyObject = {
    ...body,
    resource_type: keep.resourceType,
    id: keep.id,
    display_name: body['display_name'] ?? keep.id,
    path,
    relative_path: keep.id,
    parent_path: keep.parentPath,
    unique_id: previous?.['unique_id'] ?? randomUUID(),
    realization_id: previous?.['realization_id'] ?? previous?.['unique_id'] ?? randomUUID(),
    marked_for_delete: false,
    overridden: false,
    _create_time: previous?.['_create_time'] ?? now,
    _create_user: previous?.['_create_user'] ?? keep.user,
    _last_modified_time: now,
    _last_modified_user: keep.user,
    _system_owned: keep.systemOwned ?? previous?.['_system_owned'] ?? false,
    _protection: 'NOT_PROTECTED',
    _revision: revision,
  };
  return stored;
}

/** The collection segment of a resource type in its path. */
function relativeSegment(resourceType: string): string {
  switch (resourceType) {
    case 'Group':
      return 'groups';
    case 'Service':
      return 'services';
    case 'SecurityPolicy':
      return 'security-policies';
    case 'Rule':
      return 'rules';
    case 'LBVirtualServer':
      return 'lb-virtual-servers';
    case 'LBService':
      return 'lb-services';
    case 'LBHttpProfile':
    case 'LBFastTcpProfile':
    case 'LBFastUdpProfile':
      return 'lb-app-profiles';
    case 'Tier1':
      return 'tier-1s';
    case 'Domain':
      return 'domains';
    default:
      throw new Error(`no path segment for ${resourceType}`);
  }
}

const seedUser = 'admin';

function group(id: string, name: string, addresses: string[]): PolicyObject {
  return housekeeping(
    {
      display_name: name,
      expression: [
        {
          resource_type: 'IPAddressExpression',
          ip_addresses: addresses,
          id: `${id}-ips`,
          path: `/infra/domains/default/groups/${id}/ip-address-expressions/${id}-ips`,
          parent_path: `/infra/domains/default/groups/${id}`,
          marked_for_delete: false,
        },
      ],
    },
    { id, resourceType: 'Group', parentPath: '/infra/domains/default', user: seedUser },
  );
}

function l4Service(
  id: string,
  name: string,
  protocol: 'TCP' | 'UDP',
  ports: string[],
  systemOwned: boolean,
): PolicyObject {
  return housekeeping(
    {
      display_name: name,
      is_default: systemOwned,
      service_type: 'NON_ETHER',
      service_entries: [
        {
          resource_type: 'L4PortSetServiceEntry',
          id: name,
          display_name: name,
          path: `/infra/services/${id}/service-entries/${name}`,
          parent_path: `/infra/services/${id}`,
          relative_path: name,
          marked_for_delete: false,
          l4_protocol: protocol,
          destination_ports: ports,
          source_ports: [],
        },
      ],
    },
    { id, resourceType: 'Service', parentPath: '/infra', user: 'system', systemOwned },
  );
}

function rule(id: string, ruleId: number, sequence: number, fields: PolicyObject): PolicyObject {
  return housekeeping(
    {
      display_name: id,
      sequence_number: sequence,
      rule_id: ruleId,
      source_groups: ['ANY'],
      destination_groups: ['ANY'],
      services: ['ANY'],
      scope: ['ANY'],
      profiles: ['ANY'],
      action: 'ALLOW',
      direction: 'IN_OUT',
      ip_protocol: 'IPV4_IPV6',
      logged: false,
      disabled: false,
      is_default: false,
      sources_excluded: false,
      destinations_excluded: false,
      ...fields,
    },
    {
      id,
      resourceType: 'Rule',
      parentPath: '/infra/domains/default/security-policies/app-tier',
      user: seedUser,
    },
  );
}

export function seedNsxtState(): NsxtState {
  const groups = new Map<string, PolicyObject>(
    [
      group('web-servers', 'Web servers', ['10.0.1.10', '10.0.1.11']),
      group('app-servers', 'App servers', ['10.0.2.0/24']),
      group('db-servers', 'DB servers', ['10.0.3.5-10.0.3.9']),
      group('ipv6-mgmt', 'IPv6 management', ['fd00:10::/64']),
    ].map((g) => [String(g['id']), g]),
  );
  const services = new Map<string, PolicyObject>(
    [
      l4Service('HTTP', 'HTTP', 'TCP', ['80'], true),
      l4Service('HTTPS', 'HTTPS', 'TCP', ['443'], true),
      l4Service('SSH', 'SSH', 'TCP', ['22'], true),
      l4Service('DNS-UDP', 'DNS-UDP', 'UDP', ['53'], true),
      l4Service('app-8443', 'App 8443', 'TCP', ['8443', '9000-9010'], false),
    ].map((s) => [String(s['id']), s]),
  );
  const rules = new Map<string, PolicyObject>(
    [
      rule('allow-web', 1001, 10, {
        display_name: 'Allow web to app',
        source_groups: ['/infra/domains/default/groups/web-servers'],
        destination_groups: ['/infra/domains/default/groups/app-servers'],
        services: ['/infra/services/HTTPS', '/infra/services/app-8443'],
      }),
      rule('allow-db', 1002, 20, {
        display_name: 'Allow app to db',
        source_groups: ['/infra/domains/default/groups/app-servers'],
        destination_groups: ['/infra/domains/default/groups/db-servers'],
        services: ['/infra/services/SSH'],
        logged: true,
      }),
      rule('drop-rest', 1003, 30, { display_name: 'Drop the rest', action: 'DROP' }),
    ].map((r) => [String(r['id']), r]),
  );
  const policy = housekeeping(
    {
      display_name: 'App tier',
      category: 'Application',
      sequence_number: 10,
      stateful: true,
      tcp_strict: false,
      locked: false,
      scope: ['ANY'],
      is_default: false,
      internal_sequence_number: 5000010,
    },
    {
      id: 'app-tier',
      resourceType: 'SecurityPolicy',
      parentPath: '/infra/domains/default',
      user: seedUser,
    },
  );
  const virtualServer = housekeeping(
    {
      display_name: 'Web VIP',
      enabled: true,
      ip_address: '10.0.9.10',
      ports: ['443'],
      lb_service_path: '/infra/lb-services/web-lb',
      pool_path: '/infra/lb-pools/web-pool',
      application_profile_path: '/infra/lb-app-profiles/default-tcp-lb-app-profile',
      access_log_enabled: false,
      log_significant_event_only: false,
    },
    { id: 'web-vip', resourceType: 'LBVirtualServer', parentPath: '/infra', user: seedUser },
  );
  const webLb = housekeeping(
    {
      display_name: 'Web LB',
      connectivity_path: '/infra/tier-1s/t1-web',
      enabled: true,
      size: 'SMALL',
      error_log_level: 'INFO',
      access_log_enabled: false,
      relax_scale_validation: false,
    },
    { id: 'web-lb', resourceType: 'LBService', parentPath: '/infra', user: seedUser },
  );
  const tier1 = (id: string, name: string, fields: PolicyObject): PolicyObject =>
    housekeeping(
      {
        display_name: name,
        failover_mode: 'NON_PREEMPTIVE',
        enable_standby_relocation: false,
        route_advertisement_types: ['TIER1_CONNECTED'],
        pool_allocation: 'ROUTING',
        disable_firewall: false,
        force_whitelisting: false,
        default_rule_logging: false,
        ...fields,
      },
      { id, resourceType: 'Tier1', parentPath: '/infra', user: seedUser },
    );
  return {
    domains: new Map([
      ['default', { groups, securityPolicies: new Map([['app-tier', { policy, rules }]]) }],
    ]),
    services,
    virtualServers: new Map([['web-vip', virtualServer]]),
    lbServices: new Map([['web-lb', webLb]]),
    appProfiles: new Map(defaultAppProfiles().map((p) => [String(p['id']), p])),
    tier1s: new Map([
      [
        't1-web',
        tier1('t1-web', 'T1 web', { type: 'ROUTED', tier0_path: '/infra/tier-0s/t0-core' }),
      ],
      ['t1-isolated', tier1('t1-isolated', 'T1 isolated', { type: 'ISOLATED' })],
    ]),
    nextRuleId: 1004,
  };
}

/** The manager's default application profiles: system owned, one of each type. */
function defaultAppProfiles(): PolicyObject[] {
  const profile = (id: string, resourceType: string, fields: PolicyObject): PolicyObject =>
    housekeeping(
      { display_name: id, ...fields },
      { id, resourceType, parentPath: '/infra', user: 'system', systemOwned: true },
    );
  return [
    profile('default-http-lb-app-profile', 'LBHttpProfile', {
      idle_timeout: 15,
      request_header_size: 1024,
      response_header_size: 4096,
      response_timeout: 60,
      ntlm: false,
      http_redirect_to_https: false,
      response_buffering: false,
    }),
    profile('default-tcp-lb-app-profile', 'LBFastTcpProfile', {
      close_timeout: 8,
      idle_timeout: 1800,
      ha_flow_mirroring_enabled: false,
    }),
    profile('default-udp-lb-app-profile', 'LBFastUdpProfile', {
      idle_timeout: 300,
      flow_mirroring_enabled: false,
    }),
  ];
}
