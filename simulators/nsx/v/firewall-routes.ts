/**
 * vShield App's application firewall: `GET|POST|DELETE
 * /api/2.0/app/firewall/{contextId}/config`. GET answers the ruleset with its
 * generation number as a quoted ETag; POST replaces the complete ruleset and
 * wants `text/xml` (415) and `If-Match: "<generation>"` (missing: 428,
 * anything else: 412, or 409 by switch); new rules get ids; each write moves
 * the generation number on (docs/upstreams.md, NSX).
 *
 * Invented where the sources are silent, and documented as such: the 428 for
 * a missing If-Match (the guide only says to send it), and the 400 for a
 * `contextId` attribute that names another context than the path (the guide's
 * example has them equal; an absent attribute is accepted).
 */
import { sendEmpty } from '../../sim-server.ts';
import {
  errorCodes,
  mediaTypeAccepted,
  methodNotAllowed,
  notFound,
  readBody,
  requiredIfMatch,
  sendError,
  sendXml,
  type SimCall,
} from './sim-context.ts';
import type { NsxState, SimFirewall } from './seed.ts';
import { attr, el, kids, kidText, leaf, type SimElement, type SimNode } from './sim-xml.ts';
import { isBooleanText } from './sim-values.ts';

const ruleTags = ['layer3FirewallRule', 'layer2FirewallRule'];

function isRule(node: SimNode): boolean {
  return typeof node !== 'string' && ruleTags.includes(node.tag);
}

function rules(configuration: SimElement): SimElement[] {
  return kids(configuration).filter(isRule);
}

function ruleIds(firewall: SimFirewall): string[] {
  return rules(firewall.configuration).flatMap((rule) => attr(rule, 'id') ?? []);
}

function etag(firewall: SimFirewall): string {
  return `"${firewall.generation}"`;
}

function defaultRule(tag: string, id: number): SimElement {
  return el(
    tag,
    [
      leaf('action', 'allow'),
      leaf('logged', 'false'),
      el('notes'),
      ...(tag === 'layer3FirewallRule' ? [el('source')] : []),
      el('destination'),
    ],
    [
      ['disabled', 'false'],
      ['precedence', 'default'],
      ['id', String(id)],
    ],
  );
}

/** Another client's write, for the foreignFirewallWrites switch. */
function foreignWrite(state: NsxState, firewall: SimFirewall, k: number): void {
  const rule = el(
    'layer3FirewallRule',
    [leaf('action', 'allow'), leaf('logged', 'false'), leaf('notes', `foreign change ${k}`)],
    [
      ['disabled', 'false'],
      ['precedence', 'default'],
      ['id', String(state.nextRuleId++)],
    ],
  );
  const nodes = [...firewall.configuration.kids];
  const firstLayer2 = nodes.findIndex(
    (n) => typeof n !== 'string' && n.tag === 'layer2FirewallRule',
  );
  nodes.splice(firstLayer2 >= 0 ? firstLayer2 : nodes.length, 0, rule);
  firewall.configuration = { ...firewall.configuration, kids: nodes };
  firewall.generation += 1;
}

/** The posted rules with ids given to new ones, or a problem. */
function acceptRules(
  state: NsxState,
  firewall: SimFirewall,
  configuration: SimElement,
): SimElement | string {
  const known = new Set(ruleIds(firewall));
  const seen = new Set<string>();
  const accepted: SimNode[] = [];
  for (const node of configuration.kids) {
    if (typeof node === 'string') continue;
    if (!isRule(node)) return `Unexpected element <${node.tag}>.`;
    const action = kidText(node, 'action')?.trim().toLowerCase();
    if (action !== 'allow' && action !== 'deny' && action !== 'reject') {
      return `Invalid action ${action ?? '(none)'}.`;
    }
    const disabled = attr(node, 'disabled');
    if (disabled !== undefined && !isBooleanText(disabled))
      return 'disabled must be true or false.';
    const logged = kidText(node, 'logged')?.trim();
    if (logged !== undefined && logged !== '' && !isBooleanText(logged)) {
      return 'logged must be true or false.';
    }
    const id = attr(node, 'id');
    if (id === undefined) {
      accepted.push({ ...node, attrs: [...node.attrs, ['id', String(state.nextRuleId++)]] });
      continue;
    }
    if (!known.has(id)) return `Rule ${id} does not exist.`;
    if (seen.has(id)) return `Rule ${id} appears twice.`;
    seen.add(id);
    accepted.push(node);
  }
  return { ...configuration, kids: accepted };
}

function replaceRuleset(call: SimCall, firewall: SimFirewall): void {
  const { switches, state } = call;
  if (switches.foreignFirewallWrites > 0) {
    switches.foreignFirewallWrites -= 1;
    foreignWrite(state, firewall, switches.foreignFirewallWrites + 1);
  }
  if (!mediaTypeAccepted(call, ['text/xml'])) return;
  const ifMatch = requiredIfMatch(call);
  if (ifMatch === undefined) return;
  if (ifMatch.trim() !== etag(firewall)) {
    return sendError(
      call,
      switches.staleStatus,
      switches.staleStatus === 409 ? errorCodes.concurrentAccess : errorCodes.preconditionFailed,
      'The configuration was changed by another user; read it again.',
    );
  }
  const body = readBody(call, 'VshieldAppConfiguration', ['text/xml'], 415);
  if (body === undefined) return;
  const configurations = kids(body, 'firewallConfiguration');
  const configuration = configurations[0];
  if (configurations.length !== 1 || configuration === undefined) {
    return sendError(
      call,
      400,
      errorCodes.badRequest,
      'Exactly one <firewallConfiguration> is expected.',
    );
  }
  const contextId = attr(configuration, 'contextId');
  if (contextId !== undefined && contextId !== firewall.contextId) {
    return sendError(call, 400, errorCodes.badRequest, `contextId must be ${firewall.contextId}.`);
  }
  const accepted = acceptRules(state, firewall, configuration);
  if (typeof accepted === 'string') return sendError(call, 400, errorCodes.invalidValue, accepted);
  firewall.configuration = accepted;
  firewall.generation += 1;
  sendEmpty(call.response, 204);
}

/** Handles `/api/2.0/app/firewall/...`; `rest` follows `firewall`. */
export function firewallRoutes(call: SimCall, rest: string[]): void {
  const [contextId = '', config, ...more] = rest;
  if (config !== 'config' || more.length > 0) return notFound(call, call.request.rawPath);
  const firewall = call.state.firewalls.find((f) => f.contextId === contextId);
  if (firewall === undefined) return notFound(call, contextId);
  switch (call.request.method) {
    case 'GET': {
      const list = call.request.query.get('list');
      if (list !== null && list !== 'config') {
        return sendError(call, 400, errorCodes.badRequest, `list=${list} is not simulated.`);
      }
      return sendXml(call, 200, el('VshieldAppConfiguration', [firewall.configuration]), {
        etag: etag(firewall),
      });
    }
    case 'POST':
      return replaceRuleset(call, firewall);
    case 'DELETE': {
      const { state } = call;
      firewall.configuration = {
        ...firewall.configuration,
        kids: [
          defaultRule('layer3FirewallRule', state.nextRuleId++),
          defaultRule('layer2FirewallRule', state.nextRuleId++),
        ],
      };
      firewall.generation += 1;
      return sendEmpty(call.response, 204);
    }
    default:
      return methodNotAllowed(call, ['GET', 'POST', 'DELETE']);
  }
}
