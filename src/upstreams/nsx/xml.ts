/**
 * The network manager's XML, parsed into an order-preserving tree and built
 * back from one, so that every element and attribute the gateway does not
 * model comes back out exactly where it was. Pure: no I/O, no timers.
 * Documents with a DOCTYPE or entity declaration are refused before any
 * parsing (no entity expansion ever runs); the five predefined entities and
 * character references are decoded here.
 *
 * A hand-written single pass, not fast-xml-parser: on a 5 MB firewall
 * configuration that library's validate + parse took about 0.6 s and 130 MB
 * of heap, its build 0.3 s, in one piece each (BENCHMARKS.md, large XML).
 * Both work as steps (`parseXmlSteps`, `buildXmlSteps`): a generator that
 * pauses every few hundred tokens, so that a caller can spread a large
 * document over several turns of the event loop (xml-slices.ts);
 * `parseXml` and `buildXml` run the steps to the end at once.
 *
 * A document can also be read lazily (`lazyDepth`): the elements at that
 * depth keep their name, their attributes and their text in the document,
 * and are parsed further only when their children are asked for; an
 * untouched one is written back as that text. A firewall edit then holds a
 * few objects per rule, not a tree of every rule's parts (BENCHMARKS.md,
 * large XML).
 */

export interface XmlElement {
  readonly name: string;
  /** In document order. */
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly XmlNode[];
}

export interface XmlText {
  readonly text: string;
}

export type XmlNode = XmlElement | XmlText;

/** A document that is not well-formed, is refused, or cannot be written. */
export class XmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlError';
  }
}

const declarationPattern = /<!DOCTYPE|<!ENTITY/i;
const namePattern = /^[A-Za-z_][A-Za-z0-9._-]*(?::[A-Za-z_][A-Za-z0-9._-]*)?$/;
// Characters XML 1.0 cannot carry at all, escaped or not.
const forbiddenChars =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const reservedNames = new Set(['__proto__', 'constructor', 'prototype']);

/** True for a name usable as an element or attribute name. */
export function isXmlName(name: string): boolean {
  return namePattern.test(name) && !reservedNames.has(name);
}

/** True when every character of `text` can be written in an XML 1.0 document. */
export function isXmlText(text: string): boolean {
  return !forbiddenChars.test(text);
}

export function isElement(node: XmlNode): node is XmlElement {
  return 'name' in node;
}

export function element(
  name: string,
  attributes: Readonly<Record<string, string>> = {},
  children: readonly XmlNode[] = [],
): XmlElement {
  return { name, attributes, children };
}

/** `<name>text</name>` */
export function textElement(name: string, text: string): XmlElement {
  return element(name, {}, text === '' ? [] : [{ text }]);
}

export function childElements(parent: XmlElement, name?: string): XmlElement[] {
  return parent.children.filter(
    (node): node is XmlElement => isElement(node) && (name === undefined || node.name === name),
  );
}

export function childElement(parent: XmlElement, name: string): XmlElement | undefined {
  return childElements(parent, name)[0];
}

/** The element's own text (its text children joined). */
export function textOf(node: XmlElement): string {
  return node.children.map((child) => (isElement(child) ? '' : child.text)).join('');
}

/** The text of the first child element named `name`; undefined when there is none. */
export function childText(parent: XmlElement, name: string): string | undefined {
  const child = childElement(parent, name);
  return child === undefined ? undefined : textOf(child);
}

/**
 * An element of a lazily read document (`lazyDepth`): checked to be
 * well-formed with the rest of the document, its children are parsed from
 * its text when first asked for.
 */
class SourcedElement implements XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** The element as it stands in the document, start tag to end tag. */
  readonly source: string;
  private parsed: readonly XmlNode[] | undefined = undefined;

  constructor(name: string, attributes: Readonly<Record<string, string>>, source: string) {
    this.name = name;
    this.attributes = attributes;
    this.source = source;
  }

  get children(): readonly XmlNode[] {
    this.parsed ??= parseXml(this.source).children;
    return this.parsed;
  }
}

/** A copy of `parent` with its children replaced. */
export function withChildren(parent: XmlElement, children: readonly XmlNode[]): XmlElement {
  return element(parent.name, parent.attributes, children);
}

// ---------------------------------------------------------------- parse

/** Tokens (tags, texts) handled between two pauses of the steps. */
const tokensPerStep = 256;

const attributePattern = /\s+([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;

interface OpenElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** Where its children start in the shared list of children of every open element. */
  readonly start: number;
  /** Text not yet added as a node (adjacent text, CDATA and references merge into one). */
  text: string;
  /**
   * `tree`: built with its children; `sourced`: at `lazyDepth`, kept as its
   * text (starting at `from`); `checked`: inside a sourced one, only checked.
   */
  readonly mode: 'tree' | 'sourced' | 'checked';
  readonly from: number;
}

export interface ParseOptions {
  /**
   * The depth (the root's is 0) of the elements read lazily: their content
   * is checked but not built until asked for, and an untouched one is
   * written back as it stood. Unset: the whole tree is built.
   */
  lazyDepth?: number;
}

const noAttributes: Readonly<Record<string, string>> = Object.freeze({});
const noChildren: readonly XmlNode[] = Object.freeze([]);
/** Far deeper than any manager document (about 8); the readers of the tree recurse. */
export const maxXmlDepth = 256;
/** Names and short values repeat all over a large document: one copy of each is kept. */
const internedLength = 32;

/** Parses a document into its root element; throws XmlError when it is not well-formed or is refused. */
export function parseXml(document: string, options: ParseOptions = {}): XmlElement {
  return runToEnd(parseXmlSteps(document, options));
}

/**
 * `parseXml` as steps: pauses (yields) every few hundred tokens; its return
 * value is the root element. Throws XmlError like `parseXml`.
 */
export function* parseXmlSteps(
  document: string,
  options: ParseOptions = {},
): Generator<void, XmlElement, void> {
  const lazyDepth = options.lazyDepth ?? Infinity;
  if (declarationPattern.test(document)) {
    throw new XmlError('a DOCTYPE or entity declaration is refused');
  }
  const strings = new Map<string, string>();
  /** `transient`: a value of a checked element, dropped at once: not kept. */
  const intern = (value: string, transient = false): string => {
    if (transient || value.length > internedLength) return value;
    const seen = strings.get(value);
    if (seen !== undefined) return seen;
    strings.set(value, value);
    return value;
  };
  const names = new Set<string>();
  /** Element names by a hash of their characters. */
  const seenNames = new Map<number, string>();
  /** One entry per name for the elements only checked: they hold no state of their own. */
  const checkedElements = new Map<string, OpenElement>();
  const checkedElement = (name: string): OpenElement => {
    let open = checkedElements.get(name);
    if (open === undefined) {
      open = { name, attributes: noAttributes, start: 0, text: '', mode: 'checked', from: 0 };
      checkedElements.set(name, open);
    }
    return open;
  };
  const checkedName = (name: string, what: string): string => {
    if (names.has(name)) return intern(name);
    if (!isXmlName(name)) throw new XmlError(`"${name}" is not an accepted ${what} name`);
    names.add(name);
    return intern(name);
  };
  // The children of every open element, innermost last; texts as strings until the element closes.
  const pending: Array<XmlElement | string> = [];
  /** The element closed by the `>` before `end`; undefined for one only checked. */
  const close = (open: OpenElement, end: number): XmlElement | undefined => {
    if (open.mode === 'checked') return undefined;
    if (open.mode === 'sourced') {
      return new SourcedElement(open.name, open.attributes, document.slice(open.from, end));
    }
    if (open.text !== '') pending.push(intern(open.text));
    const children = childrenOf(pending, open.start);
    pending.length = open.start;
    return element(open.name, open.attributes, children);
  };
  const stack: OpenElement[] = [];
  let root: XmlElement | undefined;
  let current: OpenElement | undefined;
  let i = 0;
  let tokens = 0;
  while (i < document.length) {
    if (++tokens % tokensPerStep === 0) yield;
    const lt = document.indexOf('<', i);
    const end = lt < 0 ? document.length : lt;
    if (end > i) {
      if (current !== undefined && current.mode !== 'tree') {
        // content read later: only checked now, without copying it
        if (hasAmpersand(document, i, end)) decodeReferences(document.slice(i, end));
      } else {
        const text = decodeReferences(document.slice(i, end));
        if (current !== undefined) current.text += text;
        else if (text.trim() !== '') throw new XmlError('a document has exactly one root element');
      }
    }
    if (lt < 0) break;
    const next = document.charCodeAt(lt + 1);
    if (next === 0x2f /* / */) {
      // `</name>`, with optional whitespace before `>`
      const gt = document.indexOf('>', lt);
      if (current === undefined || gt < 0) throw notWellFormed('an end tag that closes nothing');
      const nameEnd = lt + 2 + current.name.length;
      if (
        !document.startsWith(current.name, lt + 2) ||
        document.slice(nameEnd, gt).trim() !== '' ||
        !isNameEnd(document.charCodeAt(nameEnd))
      ) {
        throw notWellFormed(`an end tag that does not close <${current.name}>`);
      }
      stack.pop();
      const done = close(current, gt + 1);
      current = stack.at(-1);
      if (current === undefined) root = done;
      else if (done !== undefined) pending.push(done);
      i = gt + 1;
    } else if (next === 0x21 /* ! */) {
      if (document.startsWith('<!--', lt)) {
        const end = document.indexOf('-->', lt + 4);
        if (end < 0) throw notWellFormed('an unclosed comment');
        i = end + 3;
      } else if (document.startsWith('<![CDATA[', lt)) {
        const end = document.indexOf(']]>', lt + 9);
        if (end < 0 || current === undefined) throw notWellFormed('a broken CDATA section');
        if (current.mode === 'tree') current.text += document.slice(lt + 9, end);
        i = end + 3;
      } else {
        throw notWellFormed('an unknown "<!" construct');
      }
    } else if (next === 0x3f /* ? */) {
      const end = document.indexOf('?>', lt + 2);
      if (end < 0) throw notWellFormed('an unclosed processing instruction');
      i = end + 2;
    } else {
      let nameEnd = lt + 1;
      let hash = 0;
      for (let code = document.charCodeAt(nameEnd); nameEnd < document.length;) {
        if (isNameEnd(code)) break;
        hash = (Math.imul(hash, 31) + code) | 0;
        code = document.charCodeAt(++nameEnd);
      }
      if (nameEnd === lt + 1) throw notWellFormed('a "<" that starts no tag');
      // a name seen before is taken from the names seen, not copied again
      const seen = seenNames.get(hash);
      const name =
        seen !== undefined && seen.length === nameEnd - lt - 1 && document.startsWith(seen, lt + 1)
          ? seen
          : checkedName(document.slice(lt + 1, nameEnd), 'element');
      seenNames.set(hash, name);
      const depth = stack.length;
      const mode = depth < lazyDepth ? 'tree' : depth === lazyDepth ? 'sourced' : 'checked';
      if (current === undefined && root !== undefined) {
        throw new XmlError('a document has exactly one root element');
      }
      let attributes: Record<string, string> | undefined;
      let at = nameEnd;
      for (;;) {
        attributePattern.lastIndex = at;
        const match = attributePattern.exec(document);
        if (match === null) break;
        const [, rawAttribute = '', doubleQuoted, singleQuoted] = match;
        const value = doubleQuoted ?? singleQuoted ?? '';
        const attribute = checkedName(rawAttribute, 'attribute');
        attributes ??= {};
        if (Object.hasOwn(attributes, attribute)) {
          throw notWellFormed(`the attribute "${attribute}" twice`);
        }
        if (value.includes('<')) throw new XmlError('"<" in an attribute value');
        attributes[attribute] = intern(decodeReferences(value), mode === 'checked');
        at = attributePattern.lastIndex;
      }
      while (isSpace(document.charCodeAt(at))) at++;
      const empty = document.charCodeAt(at) === 0x2f; /* / */
      if (empty) at++;
      if (document.charCodeAt(at) !== 0x3e /* > */) {
        throw notWellFormed(`a broken start tag <${name}>`);
      }
      i = at + 1;
      if (current !== undefined && current.text !== '') {
        pending.push(intern(current.text));
        current.text = '';
      }
      const opened: OpenElement =
        mode === 'checked'
          ? checkedElement(name)
          : {
              name,
              attributes: attributes ?? noAttributes,
              start: pending.length,
              text: '',
              // an empty element has no content to put off reading
              mode: mode === 'sourced' && empty ? 'tree' : mode,
              from: lt,
            };
      if (!empty) {
        if (stack.length >= maxXmlDepth) {
          throw new XmlError(`elements nested deeper than ${maxXmlDepth} levels`);
        }
        stack.push(opened);
        current = opened;
      } else {
        const done = close(opened, i);
        if (current === undefined) root = done;
        else if (done !== undefined) pending.push(done);
      }
    }
  }
  if (current !== undefined) throw notWellFormed(`<${current.name}> is never closed`);
  if (root === undefined) throw new XmlError('a document has exactly one root element');
  return root;
}

/** Whitespace, `/` or `>`: what ends a tag's name. */
function isNameEnd(code: number): boolean {
  return isSpace(code) || code === 0x2f || code === 0x3e;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
}

/** True when `document` holds a `&` from `from` up to `to`. */
function hasAmpersand(document: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (document.charCodeAt(k) === 0x26) return true;
  return false;
}

function notWellFormed(problem: string): XmlError {
  return new XmlError(`not well-formed XML (${problem})`);
}

/**
 * The children from `start` on, in an array of their own. Texts become text
 * nodes, except indentation between child elements, which is not content.
 */
function childrenOf(pending: ReadonlyArray<XmlElement | string>, start: number): XmlNode[] {
  if (pending.length === start) return noChildren as XmlNode[];
  let elements = 0;
  let blank = true;
  for (let k = start; k < pending.length; k++) {
    const part = pending[k];
    if (typeof part !== 'string') elements++;
    else if (blank && part.trim() !== '') blank = false;
  }
  const dropTexts = elements > 0 && blank;
  const children = new Array<XmlNode>(dropTexts ? elements : pending.length - start);
  let n = 0;
  for (let k = start; k < pending.length; k++) {
    const part = pending[k] as XmlElement | string;
    if (typeof part !== 'string') children[n++] = part;
    else if (!dropTexts) children[n++] = { text: part };
  }
  return children;
}

const predefined: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
};

function decodeReferences(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(
    /&(?:([A-Za-z]+)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));|&/g,
    (whole, named?: string, decimal?: string, hex?: string) => {
      if (named !== undefined) {
        const value = predefined[named];
        if (value === undefined) throw new XmlError(`undeclared entity ${whole}`);
        return value;
      }
      const code =
        decimal !== undefined ? Number(decimal) : hex !== undefined ? parseInt(hex, 16) : NaN;
      if (Number.isNaN(code) || code > 0x10ffff) throw new XmlError('a bare "&" in text');
      const char = String.fromCodePoint(code);
      if (!isXmlText(char) || code === 0) throw new XmlError(`character reference ${whole}`);
      return char;
    },
  );
}

// ---------------------------------------------------------------- build

const escapes: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // As references, so that they survive attribute-value and line-end normalisation.
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};
const needsEscape = /[&<>"'\t\n\r]/;
const escapable = /[&<>"'\t\n\r]/g;

/** Writes a document; every text and attribute value is escaped. Throws XmlError on a name or character XML cannot carry. */
export function buildXml(root: XmlElement, options: { declaration?: boolean } = {}): string {
  return runToEnd(buildXmlSteps(root, options));
}

/** `buildXml` as steps: pauses (yields) every few hundred elements; its return value is the document. */
export function* buildXmlSteps(
  root: XmlElement,
  options: { declaration?: boolean } = {},
): Generator<void, string, void> {
  const chunks: string[] = [];
  for (const chunk of buildXmlChunks(root, options)) {
    if (chunks.length > 0) yield;
    chunks.push(chunk);
  }
  return chunks.join('');
}

/**
 * `buildXml` as the document's text in order, a chunk every few hundred
 * elements (a pause between two), for a caller that wants no single string
 * of a large document (xml-slices.ts, `buildXmlBytesInSlices`).
 */
export function* buildXmlChunks(
  root: XmlElement,
  options: { declaration?: boolean } = {},
): Generator<string, void, void> {
  // `<name` and `</name>` of each name, checked once and written from one copy.
  const tags = new Map<string, { open: string; close: string }>();
  const tagsOf = (name: string): { open: string; close: string } => {
    let tag = tags.get(name);
    if (tag === undefined) {
      tag = { open: `<${checkedName(name)}`, close: `</${name}>` };
      tags.set(name, tag);
    }
    return tag;
  };
  const checkedNames = new Set<string>();
  const checkedName = (name: string): string => {
    if (checkedNames.has(name)) return name;
    if (!isXmlName(name)) throw new XmlError(`"${name}" is not an XML name`);
    checkedNames.add(name);
    return name;
  };
  // Pieces joined once per step: one flat string per step, not a rope of every piece.
  let pieces: string[] = [];
  const emit = (piece: string): void => {
    pieces.push(piece);
  };
  if (options.declaration === true) emit('<?xml version="1.0" encoding="UTF-8"?>');
  // Depth-first without recursion: each entry is an element and the index of its next child.
  const stack: Array<{ node: XmlElement; next: number }> = [];
  let tokens = 0;
  const open = (node: XmlElement): void => {
    if (node instanceof SourcedElement) {
      // as the document had it: well-formed, its names checked when it was read
      if (!isXmlText(node.source)) throw new XmlError('a character XML 1.0 cannot carry');
      emit(node.source);
      return;
    }
    emit(tagsOf(node.name).open);
    for (const [attribute, value] of Object.entries(node.attributes)) {
      emit(` ${checkedName(attribute)}="${escaped(value)}"`);
    }
    if (node.children.some((child) => isElement(child) || child.text !== '')) {
      emit('>');
      stack.push({ node, next: 0 });
    } else {
      emit('/>');
    }
  };
  open(root);
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    if (++tokens % tokensPerStep === 0) {
      const chunk = pieces.join('');
      pieces = [];
      yield chunk;
    }
    const child = top.node.children[top.next++];
    if (child === undefined) {
      emit(tagsOf(top.node.name).close);
      stack.pop();
    } else if (isElement(child)) {
      open(child);
    } else {
      emit(escaped(child.text));
    }
  }
  yield pieces.join('');
}

function escaped(text: string): string {
  if (!isXmlText(text)) throw new XmlError('a character XML 1.0 cannot carry');
  return needsEscape.test(text) ? text.replace(escapable, (char) => escapes[char] ?? char) : text;
}

/** Runs steps to their end at once. */
function runToEnd<T>(steps: Generator<unknown, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}
