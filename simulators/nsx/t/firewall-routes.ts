/**
 * The distributed firewall: security policies
 * `/policy/api/v1/infra/domains/{domain-id}/security-policies[/{policy-id}]`
 * and their rules `…/{policy-id}/rules[/{rule-id}]` (definitions
 * `SecurityPolicy`, `SecurityPolicyListResult`, `Rule`, `RuleListResult`).
 *
 * A policy and each of its rules carry their own `_revision`: changing a rule
 * does not move its policy's. GET of one policy answers its rules (by
 * `sequence_number`) with `rule_count`; the list answers `rule_count` only.
 * Rules in a policy's PUT or PATCH body are written as PATCHes of those rules
 * (the others stay).
 */
import { collectionRoutes } from './collection-routes.ts';
import { revisionedWrite } from './revisioned-write.ts';
import { pathExists } from './references.ts';
import { addressFamily } from './value-checks.ts';
import type { NsxtDomain, PolicyObject, SecurityPolicyEntry } from './seed.ts';
import {
  checkBody,
  errorCodes,
  notFound,
  readBody,
  sendError,
  sendModel,
  sendOk,
  type NsxtCall,
} from './sim-context.ts';

function bySequence(rules: Iterable<PolicyObject>): PolicyObject[] {
  return [...rules].sort(
    (a, b) => Number(a['sequence_number'] ?? 0) - Number(b['sequence_number'] ?? 0),
  );
}

/** Fields of a rule that take IP addresses besides group paths (Rule: "Along with paths we support IP Address"). */
const addressFields = new Set(['source_groups', 'destination_groups']);

/**
 * Rule paths: `ANY` alone (any case), else paths of stored groups
 * (services: stored services); the source and destination groups may also
 * hold IPv4 or IPv6 addresses, CIDRs and ranges.
 */
function rulePathsProblem(call: NsxtCall, rule: PolicyObject): string | null {
  for (const field of ['source_groups', 'destination_groups', 'services', 'scope']) {
    const paths = rule[field] as string[];
    if (paths.some((path) => path.toUpperCase() === 'ANY')) {
      if (paths.length > 1) return `${field}: ANY cannot be combined with other paths.`;
      continue;
    }
    for (const path of paths) {
      if (pathExists(call.state, path)) continue;
      if (addressFields.has(field) && !path.startsWith('/')) {
        if (addressFamily(path) !== null) continue;
        return `${field}: invalid IP address ${path}.`;
      }
      return `${field}: invalid path ${path}.`;
    }
  }
  return null;
}

function completeRule(
  call: NsxtCall,
  rule: PolicyObject,
  previous: PolicyObject | undefined,
): boolean {
  for (const field of ['source_groups', 'destination_groups', 'services', 'scope', 'profiles']) {
    const value = rule[field];
    if (!Array.isArray(value) || value.length === 0) rule[field] = ['ANY'];
  }
  rule['sequence_number'] ??= 0;
  rule['action'] ??= 'ALLOW';
  rule['direction'] ??= 'IN_OUT';
  rule['ip_protocol'] ??= 'IPV4_IPV6';
  rule['logged'] ??= false;
  rule['disabled'] ??= false;
  rule['sources_excluded'] ??= false;
  rule['destinations_excluded'] ??= false;
  rule['is_default'] = false;
  if (previous === undefined) {
    rule['rule_id'] = call.state.nextRuleId;
    call.state.nextRuleId += 1;
  } else rule['rule_id'] = previous['rule_id'];
  const problem = rulePathsProblem(call, rule);
  if (problem === null) return true;
  sendError(call, 400, errorCodes.invalidBody, problem);
  return false;
}

function writeRule(
  call: NsxtCall,
  domainId: string,
  policyId: string,
  entry: SecurityPolicyEntry,
  ruleId: string,
  body: PolicyObject,
  mode: 'put' | 'patch',
): PolicyObject | null {
  return revisionedWrite(
    call,
    {
      collection: entry.rules,
      id: ruleId,
      parentPath: `/infra/domains/${domainId}/security-policies/${policyId}`,
      resourceType: 'Rule',
      definition: 'Rule',
    },
    body,
    mode,
    (rule, previous) => completeRule(call, rule, previous),
  );
}

function policyView(entry: SecurityPolicyEntry, withRules: boolean): PolicyObject {
  const view: PolicyObject = { ...entry.policy, rule_count: entry.rules.size };
  if (withRules) view['rules'] = bySequence(entry.rules.values());
  return view;
}

function policyRoutes(call: NsxtCall, domainId: string, domain: NsxtDomain, rest: string[]): void {
  const [policyId = ''] = rest;
  const method = call.request.method;
  const entry = domain.securityPolicies.get(policyId);
  if (rest.length === 0 || method === 'GET' || method === 'DELETE') {
    // the list, one policy, or a delete (which takes the rules with it)
    const policies = new Map(
      [...domain.securityPolicies].map(([id, { policy }]) => [id, policy] as const),
    );
    return collectionRoutes(
      call,
      {
        members: policies,
        parentPath: `/infra/domains/${domainId}`,
        resourceType: 'SecurityPolicy',
        definition: 'SecurityPolicy',
        listDefinition: 'SecurityPolicyListResult',
        view: (policy) => {
          const found = domain.securityPolicies.get(String(policy['id']));
          return found === undefined ? policy : policyView(found, rest.length === 1);
        },
        afterDelete: (id) => domain.securityPolicies.delete(id),
      },
      rest,
    );
  }
  if (method !== 'PUT' && method !== 'PATCH')
    return collectionRoutes(call, emptyPolicies(domainId), rest);
  const body = readBody(call);
  if (body === null) return;
  const mode = method === 'PUT' ? 'put' : 'patch';
  const { rules: bodyRules, ...policyBody } = body;
  if (!checkBody(call, 'SecurityPolicy', body)) return;
  const policies = new Map(
    [...domain.securityPolicies].map(([id, found]) => [id, found.policy] as const),
  );
  const stored = revisionedWrite(
    call,
    {
      collection: policies,
      id: policyId,
      parentPath: `/infra/domains/${domainId}`,
      resourceType: 'SecurityPolicy',
      definition: 'SecurityPolicy',
    },
    policyBody,
    mode,
    (policy) => {
      delete policy['rule_count'];
      policy['sequence_number'] ??= 0;
      policy['stateful'] ??= true;
      policy['tcp_strict'] ??= false;
      policy['locked'] ??= false;
      policy['scope'] ??= ['ANY'];
      policy['is_default'] = false;
      return true;
    },
  );
  if (stored === null) {
    // keep what another client wrote meanwhile (foreignWrites)
    const after = policies.get(policyId);
    if (entry !== undefined && after !== undefined) entry.policy = after;
    return;
  }
  const target = entry ?? { policy: stored, rules: new Map<string, PolicyObject>() };
  target.policy = stored;
  domain.securityPolicies.set(policyId, target);
  for (const rule of (bodyRules ?? []) as PolicyObject[]) {
    const ruleId = rule['id'];
    if (typeof ruleId !== 'string') {
      sendError(call, 400, errorCodes.invalidBody, 'Each rule of a policy body needs its id.');
      return;
    }
    if (writeRule(call, domainId, policyId, target, ruleId, rule, 'patch') === null) return;
  }
  if (method === 'PUT') return sendModel(call, 'SecurityPolicy', policyView(target, true));
  sendOk(call);
}

/** A collection that answers only what collectionRoutes answers for unknown methods. */
function emptyPolicies(domainId: string): Parameters<typeof collectionRoutes>[1] {
  return {
    members: new Map(),
    parentPath: `/infra/domains/${domainId}`,
    resourceType: 'SecurityPolicy',
    definition: 'SecurityPolicy',
    listDefinition: 'SecurityPolicyListResult',
    readOnly: true,
  };
}

function ruleRoutes(
  call: NsxtCall,
  domainId: string,
  policyId: string,
  entry: SecurityPolicyEntry,
  rest: string[],
): void {
  const method = call.request.method;
  if (rest.length === 1 && (method === 'PUT' || method === 'PATCH')) {
    const body = readBody(call);
    if (body === null) return;
    const stored = writeRule(
      call,
      domainId,
      policyId,
      entry,
      rest[0] ?? '',
      body,
      method === 'PUT' ? 'put' : 'patch',
    );
    if (stored === null) return;
    if (method === 'PUT') return sendModel(call, 'Rule', stored);
    return sendOk(call);
  }
  collectionRoutes(
    call,
    {
      members: entry.rules,
      parentPath: `/infra/domains/${domainId}/security-policies/${policyId}`,
      resourceType: 'Rule',
      definition: 'Rule',
      listDefinition: 'RuleListResult',
      view: (rule) => rule,
    },
    rest,
  );
}

export function firewallRoutes(call: NsxtCall, domainId: string, rest: string[]): void {
  const domain = call.state.domains.get(domainId);
  if (domain === undefined) return notFound(call);
  if (rest.length <= 1) return policyRoutes(call, domainId, domain, rest);
  const [policyId = '', area, ...ruleRest] = rest;
  const entry = domain.securityPolicies.get(policyId);
  if (area !== 'rules' || entry === undefined || ruleRest.length > 1) return notFound(call);
  if (
    ruleRest.length === 0 &&
    call.request.method === 'GET' &&
    call.request.query.get('sort_by') === null
  ) {
    // rules come in sequence order
    const ordered = new Map(bySequence(entry.rules.values()).map((r) => [String(r['id']), r]));
    return ruleRoutes(call, domainId, policyId, { policy: entry.policy, rules: ordered }, ruleRest);
  }
  ruleRoutes(call, domainId, policyId, entry, ruleRest);
}
