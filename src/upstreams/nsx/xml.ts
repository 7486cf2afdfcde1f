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

/** A copy of `parent` with its children replaced. */
export function withChildren(parent: XmlElement, children: readonly XmlNode[]): XmlElement {
  return element(parent.name, parent.attributes, children);
}

// ---------------------------------------------------------------- parse

/** Tokens (tags, texts) handled between two pauses of the steps. */
const tokensPerStep = 256;

const attributePattern = /\s+([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;
const tagEnd = /\s*(\/?)>/y;

interface OpenElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** Where its children start in the shared list of children of every open element. */
  readonly start: number;
  /** Text not yet added as a node (adjacent text, CDATA and references merge into one). */
  text: string;
}

const noAttributes: Readonly<Record<string, string>> = Object.freeze({});
const noChildren: readonly XmlNode[] = Object.freeze([]);
/** Far deeper than any manager document (about 8); the readers of the tree recurse. */
export const maxXmlDepth = 256;
/** Names and short values repeat all over a large document: one copy of each is kept. */
const internedLength = 32;

/** Parses a document into its root element; throws XmlError when it is not well-formed or is refused. */
export function parseXml(document: string): XmlElement {
  return runToEnd(parseXmlSteps(document));
}

/**
 * `parseXml` as steps: pauses (yields) every few hundred tokens; its return
 * value is the root element. Throws XmlError like `parseXml`.
 */
export function* parseXmlSteps(document: string): Generator<void, XmlElement, void> {
  if (declarationPattern.test(document)) {
    throw new XmlError('a DOCTYPE or entity declaration is refused');
  }
  const strings = new Map<string, string>();
  const intern = (value: string): string => {
    if (value.length > internedLength) return value;
    const seen = strings.get(value);
    if (seen !== undefined) return seen;
    strings.set(value, value);
    return value;
  };
  const names = new Set<string>();
  const checkedName = (name: string, what: string): string => {
    if (names.has(name)) return intern(name);
    if (!isXmlName(name)) throw new XmlError(`"${name}" is not an accepted ${what} name`);
    names.add(name);
    return intern(name);
  };
  // The children of every open element, innermost last; texts as strings until the element closes.
  const pending: Array<XmlElement | string> = [];
  const close = (open: OpenElement): XmlElement => {
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
      const text = decodeReferences(document.slice(i, end));
      if (current !== undefined) current.text += text;
      else if (text.trim() !== '') throw new XmlError('a document has exactly one root element');
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
      const done = close(current);
      current = stack.at(-1);
      if (current === undefined) root = done;
      else pending.push(done);
      i = gt + 1;
    } else if (next === 0x21 /* ! */) {
      if (document.startsWith('<!--', lt)) {
        const end = document.indexOf('-->', lt + 4);
        if (end < 0) throw notWellFormed('an unclosed comment');
        i = end + 3;
      } else if (document.startsWith('<![CDATA[', lt)) {
        const end = document.indexOf(']]>', lt + 9);
        if (end < 0 || current === undefined) throw notWellFormed('a broken CDATA section');
        current.text += document.slice(lt + 9, end);
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
      while (nameEnd < document.length && !isNameEnd(document.charCodeAt(nameEnd))) nameEnd++;
      if (nameEnd === lt + 1) throw notWellFormed('a "<" that starts no tag');
      const name = checkedName(document.slice(lt + 1, nameEnd), 'element');
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
        attributes[attribute] = intern(decodeReferences(value));
        at = attributePattern.lastIndex;
      }
      tagEnd.lastIndex = at;
      const ending = tagEnd.exec(document);
      if (ending === null) throw notWellFormed(`a broken start tag <${name}>`);
      i = tagEnd.lastIndex;
      if (current !== undefined && current.text !== '') {
        pending.push(intern(current.text));
        current.text = '';
      }
      const opened: OpenElement = {
        name,
        attributes: attributes ?? noAttributes,
        start: pending.length,
        text: '',
      };
      if (ending[1] !== '/') {
        if (stack.length >= maxXmlDepth) {
          throw new XmlError(`elements nested deeper than ${maxXmlDepth} levels`);
        }
        stack.push(opened);
        current = opened;
      } else if (current === undefined) {
        root = close(opened);
      } else {
        pending.push(close(opened));
      }
    }
  }
  if (current !== undefined) throw notWellFormed(`<${current.name}> is never closed`);
  if (root === undefined) throw new XmlError('a document has exactly one root element');
  return root;
}

/** Whitespace, `/` or `>`: what ends a tag's name. */
function isNameEnd(code: number): boolean {
  return (
    code === 0x20 ||
    code === 0x0a ||
    code === 0x09 ||
    code === 0x0d ||
    code === 0x2f ||
    code === 0x3e
  );
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
  const chunks: string[] = [];
  let pieces: string[] = [];
  const emit = (piece: string): void => {
    pieces.push(piece);
  };
  if (options.declaration === true) emit('<?xml version="1.0" encoding="UTF-8"?>');
  // Depth-first without recursion: each entry is an element and the index of its next child.
  const stack: Array<{ node: XmlElement; next: number }> = [];
  let tokens = 0;
  const open = (node: XmlElement): void => {
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
      chunks.push(pieces.join(''));
      pieces = [];
      yield;
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
  chunks.push(pieces.join(''));
  return chunks.join('');
}

function escaped(text: string): string {
  if (!isXmlText(text)) throw new XmlError('a character XML 1.0 cannot carry');
  return needsEscape.test(text) ? text.replace(escapable, (char) => escapes[char] ?? char) : text;
}

/** Runs steps to their end at once. */
function runToEnd<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}
