/**
 * The NSX-v 6.x distributed firewall: `GET /api/4.0/firewall/globalroot-0/config`,
 * `GET …/config/{layer3|layer2}sections/{id}` (ETag: the section's generation
 * number, quoted as 6.4.5 and later quote it), and rule changes per section:
 * `POST …/{id}/rules` (`operation` insert_top by default, insert_before /
 * insert_after with `anchorId`), `GET|PUT|DELETE …/rules/{ruleId}`. Every
 * change needs `If-Match` with the current generation number, quoted or not
 * (a stale one: 412), and `Content-Type: application/xml` for a body (415);
 * each moves the section's generation number on (RAML 6.4, dfwL3Rules).
 *
 * Invented where the sources are silent, and documented as such: a missing
 * If-Match answers 428 (the RAML only says it is required); a `<sectionId>`
 * in a rule body that names another section answers 400 (an absent one is
 * accepted); an action other than allow, deny or reject (any case) answers 400.
 */
import { sendText } from '../../sim-server.ts';
import {
  errorCodes,
  methodNotAllowed,
  notFound,
  readCheckedBody,
  requiredIfMatch,
  sendError,
  sendXml,
  type SimCall,
} from './sim-context.ts';
import type { SimSection } from './seed.ts';
import { attr, el, kids, kidText, leaf, writeXml, type SimElement } from './sim-xml.ts';
import { isBooleanText } from './sim-values.ts';

const layerSegments: Readonly<Record<string, SimSection['layer']>> = {
  layer3sections: 'LAYER3',
  layer2sections: 'LAYER2',
};

function generationOf(section: SimSection): number {
  return Number(attr(section.element, 'generationNumber') ?? '0');
}

function etag(section: SimSection): string {
  return `"${generationOf(section)}"`;
}

function withAttribute(node: SimElement, name: string, value: string): SimElement {
  const attrs = node.attrs.filter(([n]) => n !== name);
  const at = node.attrs.findIndex(([n]) => n === name);
  attrs.splice(at < 0 ? attrs.length : at, 0, [name, value]);
  return { ...node, attrs };
}

/** Moves the section's generation number on: never backwards, and past the clock. */
function touch(section: SimSection): void {
  const next = String(Math.max(generationOf(section) + 1, Date.now()));
  section.element = withAttribute(
    withAttribute(section.element, 'generationNumber', next),
    'timestamp',
    next,
  );
}

/** True when If-Match holds the current generation number; otherwise answers 428 or 412. */
function preconditionHolds(call: SimCall, section: SimSection): boolean {
  const { switches, state } = call;
  if (switches.foreignSectionWrites > 0) {
    switches.foreignSectionWrites -= 1;
    const id = String(state.nextDfwRuleId++);
    const name = `foreign change ${switches.foreignSectionWrites + 1}`;
    const foreign = el(
      'rule',
      [leaf('name', name), leaf('action', 'allow')],
      [
        ['id', id],
        ['disabled', 'false'],
        ['logged', 'false'],
      ],
    );
    setRules(section, [foreign, ...rulesOf(section)]);
    touch(section);
  }
  const ifMatch = requiredIfMatch(call);
  if (ifMatch === undefined) return false;
  const bare = ifMatch
    .trim()
    .replace(/^W\//, '')
    .replace(/^"(.*)"$/, '$1');
  if (bare !== String(generationOf(section))) {
    call.state.distributedFirewall.staleRefusals += 1;
    sendError(
      call,
      412,
      errorCodes.preconditionFailed,
      'The section was changed by another user; read it again.',
    );
    return false;
  }
  return true;
}

function sendSection(call: SimCall, section: SimSection): void {
  sendXml(call, 200, section.element, { etag: etag(section) });
}

function sendRule(call: SimCall, status: number, section: SimSection, rule: SimElement): void {
  sendText(call.response, status, writeXml(rule), 'application/xml', { etag: etag(section) });
}

/** A problem with a posted `<rule>`, or undefined. */
function ruleProblem(rule: SimElement, sectionId: string): string | undefined {
  const action = kidText(rule, 'action')?.trim().toLowerCase();
  if (action !== 'allow' && action !== 'deny' && action !== 'reject') {
    return `Invalid action ${action ?? '(none)'}.`;
  }
  for (const name of ['disabled', 'logged']) {
    const value = attr(rule, name);
    if (value !== undefined && !isBooleanText(value)) return `${name} must be true or false.`;
  }
  const posted = kidText(rule, 'sectionId')?.trim();
  if (posted !== undefined && posted !== '' && posted !== sectionId) {
    return `sectionId ${posted} does not match section ${sectionId}.`;
  }
  return undefined;
}

function readRule(call: SimCall, sectionId: string): SimElement | undefined {
  return readCheckedBody(call, 'rule', (body) => ruleProblem(body, sectionId));
}

function rulesOf(section: SimSection): SimElement[] {
  return kids(section.element, 'rule');
}

function setRules(section: SimSection, rules: SimElement[]): void {
  section.element = { ...section.element, kids: rules };
}

function addRule(call: SimCall, section: SimSection, sectionId: string): void {
  const operation = call.request.query.get('operation') ?? 'insert_top';
  const anchorId = call.request.query.get('anchorId');
  if (!['insert_top', 'insert_before', 'insert_after'].includes(operation)) {
    return sendError(call, 400, errorCodes.badRequest, `Invalid operation ${operation}.`);
  }
  const rules = rulesOf(section);
  let at = 0;
  if (operation !== 'insert_top') {
    const anchor = rules.findIndex((rule) => attr(rule, 'id') === anchorId);
    if (anchor < 0)
      return sendError(
        call,
        400,
        errorCodes.badRequest,
        `anchorId ${anchorId ?? '(none)'} is not in section ${sectionId}.`,
      );
    at = operation === 'insert_before' ? anchor : anchor + 1;
  }
  if (!preconditionHolds(call, section)) return;
  const body = readRule(call, sectionId);
  if (body === undefined) return;
  const id = String(call.state.nextDfwRuleId++);
  // The manager writes the id first: <rule id="16" disabled="false" logged="true">.
  const rule: SimElement = {
    tag: 'rule',
    attrs: [['id', id], ...body.attrs.filter(([name]) => name !== 'id')],
    kids: [...kids(body).filter((k) => k.tag !== 'sectionId'), leaf('sectionId', sectionId)],
  };
  rules.splice(at, 0, rule);
  setRules(section, rules);
  touch(section);
  sendRule(call, 201, section, rule);
}

function oneRule(call: SimCall, section: SimSection, sectionId: string, ruleId: string): void {
  const rules = rulesOf(section);
  const index = rules.findIndex((rule) => attr(rule, 'id') === ruleId);
  const rule = rules[index];
  if (rule === undefined) return notFound(call, ruleId);
  switch (call.request.method) {
    case 'GET':
      return sendRule(call, 200, section, rule);
    case 'PUT': {
      if (!preconditionHolds(call, section)) return;
      const body = readRule(call, sectionId);
      if (body === undefined) return;
      rules[index] = withAttribute(body, 'id', ruleId);
      setRules(section, rules);
      touch(section);
      return sendRule(call, 200, section, rules[index] ?? rule);
    }
    case 'DELETE': {
      if (!preconditionHolds(call, section)) return;
      rules.splice(index, 1);
      setRules(section, rules);
      touch(section);
      call.response.writeHead(204, { etag: etag(section) });
      call.response.end();
      return;
    }
    default:
      return methodNotAllowed(call, ['GET', 'PUT', 'DELETE']);
  }
}

function wholeConfiguration(call: SimCall): void {
  if (call.request.method !== 'GET') return methodNotAllowed(call, ['GET', 'PUT']);
  const { sections } = call.state.distributedFirewall;
  const generation = Math.max(...sections.map(generationOf));
  const layer = (name: SimSection['layer']) =>
    sections.filter((s) => s.layer === name).map((s) => s.element);
  sendXml(
    call,
    200,
    el(
      'firewallConfiguration',
      [
        leaf('contextId', 'globalroot-0'),
        el('layer3Sections', layer('LAYER3')),
        el('layer2Sections', layer('LAYER2')),
      ],
      [['timestamp', String(generation)]],
    ),
    { etag: `"${generation}"` },
  );
}

/** Handles `/api/4.0/firewall/...`; `rest` follows `firewall`. */
export function dfwRoutes(call: SimCall, rest: string[]): void {
  if (!call.manager.distributedFirewall) return notFound(call, call.request.rawPath);
  const [root, config, segment, sectionId, rules, ruleId, ...beyond] = rest;
  if (root !== 'globalroot-0' || config !== 'config') return notFound(call, call.request.rawPath);
  if (segment === undefined) return wholeConfiguration(call);
  const layer = layerSegments[segment];
  if (layer === undefined || sectionId === undefined || beyond.length > 0) {
    return notFound(call, call.request.rawPath);
  }
  const section = call.state.distributedFirewall.sections.find(
    (s) => s.layer === layer && attr(s.element, 'id') === sectionId,
  );
  if (section === undefined) return notFound(call, sectionId);
  if (rules === undefined) {
    if (call.request.method !== 'GET') return methodNotAllowed(call, ['GET', 'PUT', 'DELETE']);
    return sendSection(call, section);
  }
  if (rules !== 'rules') return notFound(call, call.request.rawPath);
  if (ruleId === undefined) {
    if (call.request.method !== 'POST') return methodNotAllowed(call, ['POST']);
    return addRule(call, section, sectionId);
  }
  oneRule(call, section, sectionId, ruleId);
}
