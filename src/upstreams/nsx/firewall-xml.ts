/**
 * The vShield App firewall configuration (`<VshieldAppConfiguration>`) off
 * and onto the wire. Rules are kept as the elements the manager sent: an
 * edit replaces or splices single rules and leaves every other node of the
 * document, and every unmodelled child or attribute of an edited rule, as it
 * was.
 */
import type { RuleDraft, RulePart } from './drafts.ts';
import { badResponse, booleanText, requireRoot } from './fields.ts';
import type {
  FirewallConfigRecord,
  FirewallLayerName,
  FirewallRuleElement,
  FirewallRuleRecord,
} from './wire.ts';
import { sameJson } from './xml-json.ts';
import { removeChildren, setAttribute, setChild } from './xml-edit.ts';
import {
  childElement,
  element,
  isElement,
  textElement,
  textOf,
  withChildren,
  type XmlElement,
  type XmlNode,
} from './xml.ts';

const ruleElementNames: Readonly<Record<FirewallLayerName, string>> = {
  LAYER3: 'layer3FirewallRule',
  LAYER2: 'layer2FirewallRule',
};

/** The order of a rule's modelled children, as in the vShield API guide's example. */
const childOrder = ['action', 'logged', 'notes', 'source', 'destination', 'service'];

function layerOf(node: XmlNode): FirewallLayerName | undefined {
  if (!isElement(node)) return undefined;
  if (node.name === ruleElementNames.LAYER3) return 'LAYER3';
  if (node.name === ruleElementNames.LAYER2) return 'LAYER2';
  return undefined;
}

/** The ETag carries the generation number; newer managers quote it (and may mark it weak). */
export function generationFromEtag(etag: string | undefined): string {
  const value = etag
    ?.trim()
    .replace(/^W\//, '')
    .replace(/^"(.*)"$/, '$1')
    .trim();
  if (value === undefined || value === '')
    throw badResponse('a firewall configuration without ETag');
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(value))
    throw badResponse('an ETag that is not a generation number');
  return value;
}

/** The depth of the rules in the document: parsed lazily there (xml.ts, `lazyDepth`). */
export const firewallRuleDepth = 2;

/** The configuration with its rules' ids and layers; each rule is typed only when asked for. */
export function readFirewallConfig(
  document: XmlElement,
  contextId: string,
  generationNumber: string,
): FirewallConfigRecord {
  const config = firewallConfiguration(requireRoot(document, 'VshieldAppConfiguration'));
  const ruleElements = config.children.flatMap((node): FirewallRuleElement[] => {
    const layer = layerOf(node);
    if (layer === undefined || !isElement(node)) return [];
    const id = node.attributes['id']?.trim();
    return [{ id: id === undefined || id === '' ? null : id, layer, xml: node }];
  });
  return { contextId, generationNumber, ruleElements, document };
}

/** Throws, as `readFirewallConfig` does, unless the document is a configuration with its rules' element. */
export function checkFirewallDocument(document: XmlElement): void {
  firewallConfiguration(requireRoot(document, 'VshieldAppConfiguration'));
}

/** Every rule typed, in document order; a rule the gateway cannot read is a bad response. */
export function readRules(config: FirewallConfigRecord): FirewallRuleRecord[] {
  return config.ruleElements.map((rule) => readRule(rule.xml, rule.layer));
}

/** `readRules` as steps, pausing every few dozen rules (xml-slices.ts, `inSlices`). */
export function* readRulesSteps(
  config: FirewallConfigRecord,
): Generator<void, FirewallRuleRecord[], void> {
  const rules: FirewallRuleRecord[] = [];
  for (const rule of config.ruleElements) {
    if (rules.length % rulesPerStep === rulesPerStep - 1) yield;
    rules.push(readRule(rule.xml, rule.layer));
  }
  return rules;
}

const rulesPerStep = 32;

export function readRule(node: XmlElement, layer: FirewallLayerName): FirewallRuleRecord {
  const parts = firstChildren(node);
  const action = textOrUndefined(parts.action)?.trim();
  if (action === undefined || action === '') throw badResponse(`<${node.name}> without <action>`);
  const id = node.attributes['id']?.trim();
  const disabled = node.attributes['disabled'];
  const logged = textOrUndefined(parts.logged);
  return {
    id: id === undefined || id === '' ? null : id,
    layer,
    action,
    disabled: disabled === undefined ? false : booleanText(disabled, 'disabled'),
    logged: logged === undefined || logged.trim() === '' ? false : booleanText(logged, '<logged>'),
    precedence: node.attributes['precedence'] ?? null,
    notes: textOrUndefined(parts.notes) ?? null,
    source: parts.source ?? null,
    destination: parts.destination ?? null,
    service: parts.service ?? null,
    xml: node,
  };
}

type RulePartName = 'action' | 'logged' | 'notes' | 'source' | 'destination' | 'service';
const rulePartNames: ReadonlySet<string> = new Set<RulePartName>([
  'action',
  'logged',
  'notes',
  'source',
  'destination',
  'service',
]);

/** The first child of each modelled name, in one pass (a configuration holds thousands of rules). */
function firstChildren(node: XmlElement): Partial<Record<RulePartName, XmlElement>> {
  const found: Partial<Record<RulePartName, XmlElement>> = {};
  for (const child of node.children) {
    if (isElement(child) && rulePartNames.has(child.name)) {
      found[child.name as RulePartName] ??= child;
    }
  }
  return found;
}

function textOrUndefined(node: XmlElement | undefined): string | undefined {
  return node === undefined ? undefined : textOf(node);
}

/**
 * The rule element for a draft: a new one, or, given the current rule of the
 * same id, that rule with the draft's fields written over it (unset fields and
 * every unmodelled child and attribute kept in place).
 */
export function ruleXml(draft: RuleDraft, current?: FirewallRuleRecord): XmlElement {
  let node = current?.xml ?? element(ruleElementNames[draft.layer]);
  node = setAttribute(node, 'disabled', String(draft.disabled));
  node = setAttribute(node, 'precedence', draft.precedence);
  node = setChild(node, textElement('action', draft.action), childOrder);
  node = setChild(node, textElement('logged', String(draft.logged)), childOrder);
  if (draft.notes !== undefined) {
    node =
      draft.notes === null
        ? removeChildren(node, 'notes')
        : setChild(node, textElement('notes', draft.notes), childOrder);
  }
  for (const part of ['source', 'destination', 'service'] as const) {
    node = withPart(node, part, draft[part], current?.[part] ?? null);
  }
  return node;
}

function withPart(
  node: XmlElement,
  name: string,
  part: RulePart | null | undefined,
  current: XmlElement | null,
): XmlElement {
  if (part === undefined) return node;
  if (part === null) return removeChildren(node, name);
  // The same JSON keeps the current element, so that what JSON cannot tell
  // apart (the interleaving of repeated children) stays as the manager had it.
  if (current !== null && sameJson(current, part.json)) return node;
  return setChild(node, part.xml, childOrder);
}

/** The rule's index among the children of `<firewallConfiguration>`, or -1. */
function indexOfRule(children: readonly XmlNode[], ruleId: string): number {
  return children.findIndex(
    (node) =>
      layerOf(node) !== undefined && isElement(node) && node.attributes['id']?.trim() === ruleId,
  );
}

function firewallConfiguration(document: XmlElement): XmlElement {
  const node = childElement(document, 'firewallConfiguration');
  if (node === undefined) {
    throw badResponse('<VshieldAppConfiguration> without <firewallConfiguration>');
  }
  return node;
}

/** The document with `<firewallConfiguration>`'s children replaced; every other node kept. */
function withRules(document: XmlElement, edit: (children: XmlNode[]) => XmlNode[]): XmlElement {
  const current = firewallConfiguration(document);
  return withChildren(
    document,
    document.children.map((node) =>
      node === current ? withChildren(current, edit([...current.children])) : node,
    ),
  );
}

/** Number of rules of a layer. */
export function layerSize(config: FirewallConfigRecord, layer: FirewallLayerName): number {
  return config.ruleElements.filter((rule) => rule.layer === layer).length;
}

/**
 * The document with `rule` inserted at `position` among the rules of its
 * layer (absent or past the end: after the last one). Every other node stays
 * where it was.
 */
export function insertRule(
  document: XmlElement,
  rule: XmlElement,
  position: number | undefined,
): XmlElement {
  const layer = layerOf(rule);
  return withRules(document, (children) => {
    const layerIndexes = children.flatMap((node, i) => (layerOf(node) === layer ? [i] : []));
    const lastOfLayer = layerIndexes.at(-1);
    let at: number;
    if (position !== undefined && position < layerIndexes.length) {
      at = layerIndexes[position] ?? children.length;
    } else if (lastOfLayer !== undefined) {
      at = lastOfLayer + 1;
    } else if (layer === 'LAYER3') {
      // Layer-3 rules come before layer-2 rules.
      const firstLayer2 = children.findIndex((node) => layerOf(node) === 'LAYER2');
      at = firstLayer2 >= 0 ? firstLayer2 : children.length;
    } else {
      at = children.length;
    }
    children.splice(at, 0, rule);
    return children;
  });
}

/** The document without the rule of that id (unchanged when there is none). */
export function removeRule(document: XmlElement, ruleId: string): XmlElement {
  return withRules(document, (children) => {
    const at = indexOfRule(children, ruleId);
    if (at >= 0) children.splice(at, 1);
    return children;
  });
}

/** The document with the rule of that id replaced in place (unchanged when there is none). */
export function replaceRule(document: XmlElement, ruleId: string, rule: XmlElement): XmlElement {
  return withRules(document, (children) => {
    const at = indexOfRule(children, ruleId);
    if (at >= 0) children[at] = rule;
    return children;
  });
}

/**
 * The complete ruleset replaced: layer-3 rules, then layer-2 rules, each in
 * the given order, after whatever else `<firewallConfiguration>` holds.
 */
export function replaceAllRules(document: XmlElement, rules: readonly XmlElement[]): XmlElement {
  const byLayer = (layer: FirewallLayerName) => rules.filter((rule) => layerOf(rule) === layer);
  return withRules(document, (children) => [
    ...children.filter((node) => layerOf(node) === undefined),
    ...byLayer('LAYER3'),
    ...byLayer('LAYER2'),
  ]);
}
