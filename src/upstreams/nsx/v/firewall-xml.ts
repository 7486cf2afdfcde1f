/**
 * The vShield App firewall configuration (`<VshieldAppConfiguration>`) off
 * and onto the wire. Rules are kept as the elements the manager sent: an
 * edit replaces or splices single rules and leaves every other node of the
 * document, and every unmodelled child or attribute of an edited rule, as it
 * was.
 */
import type { RuleDraft, RulePart } from '../drafts.ts';
import { badResponse, booleanText, requireRoot } from '../fields.ts';
import type {
  FirewallConfigRecord,
  FirewallLayerName,
  FirewallRuleElement,
  FirewallRuleIndex,
  FirewallRuleRecord,
} from '../wire.ts';
import { sameJson } from '../xml/xml-json.ts';
import { removeChildren, setAttribute, setChild } from '../xml/xml-edit.ts';
import {
  mapItems,
  piecesOf,
  splicedElement,
  splicePieces,
  type Piece,
  type Pieces,
} from '../xml/xml-splice.ts';
import {
  buildXml,
  childElement,
  childIndexOf,
  ChildIndex,
  element,
  isElement,
  parseXml,
  textElement,
  textOf,
  withChildren,
  type ParseOptions,
  type XmlElement,
  type XmlNode,
} from '../xml/xml.ts';

const ruleElementNames: Readonly<Record<FirewallLayerName, string>> = {
  LAYER3: 'layer3FirewallRule',
  LAYER2: 'layer2FirewallRule',
};

/** The order of a rule's modelled children, as in the vShield API guide's example. */
const childOrder = ['action', 'logged', 'notes', 'source', 'destination', 'service'];

function layerNamed(name: string): FirewallLayerName | undefined {
  if (name === ruleElementNames.LAYER3) return 'LAYER3';
  if (name === ruleElementNames.LAYER2) return 'LAYER2';
  return undefined;
}

function layerOf(node: XmlNode): FirewallLayerName | undefined {
  return isElement(node) ? layerNamed(node.name) : undefined;
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

/**
 * How a configuration is parsed: `<firewallConfiguration>` (depth 1) read
 * lazily, its children (the rules) indexed as ranges of the bytes, not made
 * objects: an edit reads only the rules it changes, and writes every other
 * one back as the bytes it came as (xml-splice.ts).
 */
export const firewallParseOptions: ParseOptions = { lazyDepth: 1, indexLazyChildren: true };

/** How a configuration read only for its check is parsed: the rules checked, not indexed. */
export const firewallCheckOptions: ParseOptions = { lazyDepth: 1 };

/** The configuration with its rules indexed; each rule is read only when asked for. */
export function readFirewallConfig(
  document: XmlElement,
  contextId: string,
  generationNumber: string,
): FirewallConfigRecord {
  let configuration = firewallConfiguration(requireRoot(document, 'VshieldAppConfiguration'));
  if (childIndexOf(configuration) === undefined && configuration.children.some(isElement)) {
    // a document built as a whole tree (not off the wire): read as one off the wire is
    document = parseXml(buildXml(document), firewallParseOptions);
    configuration = firewallConfiguration(document);
  }
  const index = childIndexOf(configuration) ?? ChildIndex.empty;
  return { contextId, generationNumber, ruleIndex: new FirewallRules(index), document };
}

/** Throws, as `readFirewallConfig` does, unless the document is a configuration with its rules' element. */
export function checkFirewallDocument(document: XmlElement): void {
  firewallConfiguration(requireRoot(document, 'VshieldAppConfiguration'));
}

/**
 * The rules of a configuration, off the index of `<firewallConfiguration>`'s
 * children: a rule is made an element only when it is asked for.
 */
export class FirewallRules implements FirewallRuleIndex {
  readonly #index: ChildIndex;

  constructor(index: ChildIndex) {
    this.#index = index;
  }

  /** Number of rules of a layer. */
  layerSize(layer: FirewallLayerName): number {
    let size = 0;
    for (let i = 0; i < this.#index.count; i++) if (this.#layer(i) === layer) size++;
    return size;
  }

  /** The rule of that id, read; undefined when there is none. */
  find(ruleId: string): FirewallRuleElement | undefined {
    for (let i = 0; i < this.#index.count; i++) {
      const layer = this.#layer(i);
      if (layer !== undefined && idOf(this.#index.attributes(i)) === ruleId) {
        return this.#rule(i, layer);
      }
    }
    return undefined;
  }

  /** Every rule in document order, each read as it comes. */
  *[Symbol.iterator](): Generator<FirewallRuleElement, void, void> {
    for (let i = 0; i < this.#index.count; i++) {
      const layer = this.#layer(i);
      if (layer !== undefined) yield this.#rule(i, layer);
    }
  }

  #layer(i: number): FirewallLayerName | undefined {
    return layerNamed(this.#index.name(i));
  }

  #rule(i: number, layer: FirewallLayerName): FirewallRuleElement {
    const xml = this.#index.element(i);
    return { id: idOf(xml.attributes), layer, xml };
  }
}

function idOf(attributes: Readonly<Record<string, string>>): string | null {
  const id = attributes['id']?.trim();
  return id === undefined || id === '' ? null : id;
}

/** Every rule typed, in document order; a rule the gateway cannot read is a bad response. */
export function readRules(config: FirewallConfigRecord): FirewallRuleRecord[] {
  return [...config.ruleIndex].map((rule) => readRule(rule.xml, rule.layer));
}

/** `readRules` as steps, pausing every few dozen rules (xml-slices.ts, `inSlices`). */
export function* readRulesSteps(
  config: FirewallConfigRecord,
): Generator<void, FirewallRuleRecord[], void> {
  const rules: FirewallRuleRecord[] = [];
  for (const rule of config.ruleIndex) {
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

function firewallConfiguration(document: XmlElement): XmlElement {
  const node = childElement(document, 'firewallConfiguration');
  if (node === undefined) {
    throw badResponse('<VshieldAppConfiguration> without <firewallConfiguration>');
  }
  return node;
}

/**
 * The document with `<firewallConfiguration>`'s children spliced as `edit`
 * says (xml-splice.ts); every other node kept. The document is one read with
 * `firewallParseOptions` (`readFirewallConfig`), or one made from it here.
 */
function withRules(document: XmlElement, edit: (current: Pieces) => Pieces): XmlElement {
  const current = firewallConfiguration(document);
  const pieces = piecesOf(current);
  if (pieces === undefined) throw new Error('a firewall configuration not read for an edit');
  const spliced = splicedElement(current, edit(pieces));
  return withChildren(
    document,
    document.children.map((node) => (node === current ? spliced : node)),
  );
}

/** The layer of one of `<firewallConfiguration>`'s children (undefined: not a rule). */
function layerOfItem({ index }: Pieces, item: number | XmlElement): FirewallLayerName | undefined {
  return typeof item === 'number' ? layerNamed(index.name(item)) : layerOf(item);
}

/** The layer of each of `<firewallConfiguration>`'s children, in order. */
function layersOf(current: Pieces): Array<FirewallLayerName | undefined> {
  return mapItems(current, (item) => layerOfItem(current, item));
}

/** The position of the rule among `<firewallConfiguration>`'s children, or -1. */
function positionOfRule(current: Pieces, ruleId: string): number {
  return mapItems(current, (item) => {
    if (layerOfItem(current, item) === undefined) return null;
    return idOf(typeof item === 'number' ? current.index.attributes(item) : item.attributes);
  }).indexOf(ruleId);
}

/** Number of rules of a layer. */
export function layerSize(config: FirewallConfigRecord, layer: FirewallLayerName): number {
  return config.ruleIndex.layerSize(layer);
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
  return withRules(document, (current) => {
    const layers = layersOf(current);
    const layerIndexes = layers.flatMap((of, i) => (of === layer ? [i] : []));
    const lastOfLayer = layerIndexes.at(-1);
    let at: number;
    if (position !== undefined && position < layerIndexes.length) {
      at = layerIndexes[position] ?? layers.length;
    } else if (lastOfLayer !== undefined) {
      at = lastOfLayer + 1;
    } else if (layer === 'LAYER3') {
      // Layer-3 rules come before layer-2 rules.
      const firstLayer2 = layers.indexOf('LAYER2');
      at = firstLayer2 >= 0 ? firstLayer2 : layers.length;
    } else {
      at = layers.length;
    }
    return splicePieces(current, at, 0, [rule]);
  });
}

/** The document without the rule of that id (unchanged when there is none). */
export function removeRule(document: XmlElement, ruleId: string): XmlElement {
  return withRules(document, (current) => {
    const at = positionOfRule(current, ruleId);
    return at >= 0 ? splicePieces(current, at, 1, []) : current;
  });
}

/** The document with the rule of that id replaced in place (unchanged when there is none). */
export function replaceRule(document: XmlElement, ruleId: string, rule: XmlElement): XmlElement {
  return withRules(document, (current) => {
    const at = positionOfRule(current, ruleId);
    return at >= 0 ? splicePieces(current, at, 1, [rule]) : current;
  });
}

/**
 * The complete ruleset replaced: layer-3 rules, then layer-2 rules, each in
 * the given order, after whatever else `<firewallConfiguration>` holds.
 */
export function replaceAllRules(document: XmlElement, rules: readonly XmlElement[]): XmlElement {
  const byLayer = (layer: FirewallLayerName) => rules.filter((rule) => layerOf(rule) === layer);
  return withRules(document, (current) => {
    const layers = layersOf(current);
    const kept = mapItems(current, (item): Piece =>
      typeof item === 'number' ? { first: item, last: item } : item,
    );
    return {
      index: current.index,
      pieces: [
        ...kept.filter((_, k) => layers[k] === undefined),
        ...byLayer('LAYER3'),
        ...byLayer('LAYER2'),
      ],
    };
  });
}
