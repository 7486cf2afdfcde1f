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
 * untouched one is written back as that text. Their children can be indexed
 * as ranges of the bytes as the parse goes (`indexLazyChildren`,
 * `ChildIndex`): a firewall edit then holds no object per rule, and writes
 * the rules it leaves alone back as runs of those bytes (xml-splice.ts;
 * BENCHMARKS.md, large XML).
 */
import { isUtf8 } from 'node:buffer';

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
  /** The document's UTF-8 bytes; the element stands from `from` to `to` (start tag to end tag). */
  readonly #document: Uint8Array;
  readonly #from: number;
  readonly #to: number;
  /** Its child elements as ranges of the bytes, when the parse was asked for them (`indexLazyChildren`). */
  readonly index: ChildIndex | undefined;
  #parsed: readonly XmlNode[] | undefined = undefined;

  constructor(
    name: string,
    attributes: Readonly<Record<string, string>>,
    document: Uint8Array,
    from: number,
    to: number,
    index?: ChildIndex,
  ) {
    this.name = name;
    this.attributes = attributes;
    this.#document = document;
    this.#from = from;
    this.#to = to;
    this.index = index;
  }

  /** The element as it stands in the document (a view of its bytes, not a copy). */
  get source(): Uint8Array {
    return this.#document.subarray(this.#from, this.#to);
  }

  get children(): readonly XmlNode[] {
    this.#parsed ??= parseXml(this.source).children;
    return this.#parsed;
  }
}

/**
 * The child elements of a lazily read element, as ranges of the document's
 * bytes: three numbers and a name each, not an object each (a firewall
 * configuration holds thousands of rules, and objects held for the length of
 * an edit outlive young collections: BENCHMARKS.md, large XML). Text and
 * comments between them are not indexed.
 */
export class ChildIndex {
  /** Number of child elements. */
  readonly count: number;
  readonly #document: Buffer;
  /** Per child: where its start tag begins, where its start tag's `>` is, where it ends (past its end tag). */
  readonly #ranges: Int32Array;
  readonly #nameIds: Int32Array;
  readonly #names: readonly string[];

  constructor(
    document: Buffer,
    count: number,
    ranges: Int32Array,
    nameIds: Int32Array,
    names: readonly string[],
  ) {
    this.#document = document;
    this.count = count;
    this.#ranges = ranges;
    this.#nameIds = nameIds;
    this.#names = names;
  }

  /** An index of no children. */
  static readonly empty = new ChildIndex(
    Buffer.alloc(0),
    0,
    new Int32Array(0),
    new Int32Array(0),
    [],
  );

  name(i: number): string {
    return this.#names[this.#at(i, this.#nameIds, 1)] ?? '';
  }

  /** The bytes from child `first`'s start tag to the end of child `last`, with what lies between them. */
  bytes(first: number, last = first): Uint8Array {
    return this.#document.subarray(
      this.#at(first, this.#ranges, 3),
      this.#at(last, this.#ranges, 3, 2),
    );
  }

  /** Child `i`'s attributes, read off its start tag. */
  attributes(i: number): Readonly<Record<string, string>> {
    const document = this.#document;
    const tag: StartTag = { end: 0, attributes: undefined, empty: false };
    const name = this.name(i);
    readStartTag(
      document,
      this.#at(i, this.#ranges, 3) + 1 + name.length,
      name,
      tag,
      (from, to) => document.toString('utf8', from, to),
      (value) => value,
    );
    return tag.attributes ?? noAttributes;
  }

  /** Child `i` as an element read lazily: its children parsed from its bytes when asked for. */
  element(i: number): XmlElement {
    const from = this.#at(i, this.#ranges, 3);
    const to = this.#at(i, this.#ranges, 3, 2);
    return new SourcedElement(this.name(i), this.attributes(i), this.#document, from, to);
  }

  #at(i: number, values: Int32Array, stride: number, offset = 0): number {
    if (!Number.isInteger(i) || i < 0 || i >= this.count) {
      throw new RangeError(`child ${i} of ${this.count}`);
    }
    return values[i * stride + offset] ?? 0;
  }
}

/** Gathers a ChildIndex as the parse goes, in arrays that double as they fill. */
class ChildIndexBuilder {
  #count = 0;
  #ranges: Int32Array<ArrayBuffer> = new Int32Array(3 * 64);
  #nameIds: Int32Array<ArrayBuffer> = new Int32Array(64);
  readonly #names: string[] = [];
  readonly #nameIdOf = new Map<string, number>();

  /** A child element opens at `from`, its start tag's `>` at `tagEnd`. */
  open(from: number, tagEnd: number, name: string): void {
    if (this.#count === this.#nameIds.length) {
      this.#ranges = grown(this.#ranges);
      this.#nameIds = grown(this.#nameIds);
    }
    let id = this.#nameIdOf.get(name);
    if (id === undefined) {
      id = this.#names.push(name) - 1;
      this.#nameIdOf.set(name, id);
    }
    this.#ranges[3 * this.#count] = from;
    this.#ranges[3 * this.#count + 1] = tagEnd;
    this.#nameIds[this.#count] = id;
    this.#count++;
  }

  /** The child opened last ends at `to`. */
  close(to: number): void {
    this.#ranges[3 * (this.#count - 1) + 2] = to;
  }

  done(document: Buffer): ChildIndex {
    return new ChildIndex(document, this.#count, this.#ranges, this.#nameIds, this.#names);
  }
}

function grown(values: Int32Array): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(values.length * 2);
  bigger.set(values);
  return bigger;
}

/** The index of a lazily read element's children, when its parse made one (`indexLazyChildren`). */
export function childIndexOf(node: XmlElement): ChildIndex | undefined {
  return node instanceof SourcedElement ? node.index : undefined;
}

/**
 * Written by the build with some of its content as bytes: an element that
 * keeps runs of a lazily read element's children as they stood (xml-splice.ts).
 */
export const contentParts = Symbol('contentParts');

export interface WrittenInParts extends XmlElement {
  /** Its content in order: elements, and bytes written as they are (UTF-8, well-formed). */
  readonly [contentParts]: ReadonlyArray<XmlElement | Uint8Array>;
}

function isWrittenInParts(node: XmlElement): node is WrittenInParts {
  return contentParts in node;
}

/** A copy of `parent` with its children replaced. */
export function withChildren(parent: XmlElement, children: readonly XmlNode[]): XmlElement {
  return element(parent.name, parent.attributes, children);
}

// ---------------------------------------------------------------- parse

/** Tokens (tags, texts) handled between two pauses of the steps. */
const tokensPerStep = 256;

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
  /**
   * With `lazyDepth`: the child elements of each element read lazily are
   * indexed as ranges of the bytes as the parse goes (`childIndexOf`).
   */
  indexLazyChildren?: boolean;
}

const noAttributes: Readonly<Record<string, string>> = Object.freeze({});
const noChildren: readonly XmlNode[] = Object.freeze([]);
/** Far deeper than any manager document (about 8); the readers of the tree recurse. */
export const maxXmlDepth = 256;
/** Names and short values repeat all over a large document: one copy of each is kept. */
const internedLength = 32;

/**
 * Parses a document, as text or as its UTF-8 bytes, into its root element;
 * throws XmlError when it is not well-formed or is refused.
 */
export function parseXml(document: string | Uint8Array, options: ParseOptions = {}): XmlElement {
  return runToEnd(parseXmlSteps(document, options));
}

/**
 * `parseXml` as steps: pauses (yields) every few hundred tokens; its return
 * value is the root element. Throws XmlError like `parseXml`. The parse runs
 * on the UTF-8 bytes (a text is encoded first): a large answer read as bytes
 * is never one string on V8's heap, and a lazily read element is a range of
 * those bytes.
 */
export function* parseXmlSteps(
  document: string | Uint8Array,
  options: ParseOptions = {},
): Generator<void, XmlElement, void> {
  const lazyDepth = options.lazyDepth ?? Infinity;
  const indexing = options.indexLazyChildren === true;
  /** The index of the children of the element read lazily that is open. */
  let childIndex: ChildIndexBuilder | undefined;
  const doc = utf8Bytes(document);
  // the typed array's own search: Buffer's allocates on every call
  const bytes = new Uint8Array(doc.buffer, doc.byteOffset, doc.byteLength);
  if (hasDeclaration(doc)) {
    throw new XmlError('a DOCTYPE or entity declaration is refused');
  }
  const length = doc.length;
  /** The byte at `k`; -1 past the end. */
  const byteAt = (k: number): number => doc[k] ?? -1;
  const strings = new Map<string, string>();
  const intern = (value: string): string => {
    if (value.length > internedLength) return value;
    const seen = strings.get(value);
    if (seen !== undefined) return seen;
    strings.set(value, value);
    return value;
  };
  /** A value of an element only checked, dropped at once: not kept. */
  const dropped = (value: string): string => value;
  /** Element names by a hash of their bytes. */
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
    if (!isXmlName(name)) throw new XmlError(`"${name}" is not an accepted ${what} name`);
    return name;
  };
  // The children of every open element, innermost last; texts as strings until the element closes.
  const pending: Array<XmlElement | string> = [];
  /** The element closed by the `>` before `end`; undefined for one only checked. */
  const close = (open: OpenElement, end: number): XmlElement | undefined => {
    if (open.mode === 'checked') return undefined;
    if (open.mode === 'sourced') {
      const index = indexing ? (childIndex ?? new ChildIndexBuilder()).done(doc) : undefined;
      childIndex = undefined;
      return new SourcedElement(open.name, open.attributes, doc, open.from, end, index);
    }
    if (open.text !== '') pending.push(intern(open.text));
    const children = childrenOf(pending, open.start);
    pending.length = open.start;
    return element(open.name, open.attributes, children);
  };
  /** Attribute names by a hash of their bytes. */
  const seenAttributes = new Map<number, string>();
  const attributeName = (from: number, to: number): string => {
    let hash = 0;
    for (let k = from; k < to; k++) hash = (Math.imul(hash, 31) + byteAt(k)) | 0;
    const seen = seenAttributes.get(hash);
    if (seen !== undefined && seen.length === to - from && hasAsciiAt(doc, seen, from)) return seen;
    const name = checkedName(doc.toString('utf8', from, to), 'attribute');
    seenAttributes.set(hash, name);
    return name;
  };
  /** The start tag read last. */
  const tag: StartTag = { end: 0, attributes: undefined, empty: false };
  const stack: OpenElement[] = [];
  let root: XmlElement | undefined;
  let current: OpenElement | undefined;
  let i = 0;
  let tokens = 0;
  /** The next `&` at or after `i` (`length` when there is none): one search for the whole document. */
  let nextAmpersand = -1;
  while (i < length) {
    if (++tokens % tokensPerStep === 0) yield;
    const lt = bytes.indexOf(0x3c /* < */, i);
    const end = lt < 0 ? length : lt;
    if (end > i) {
      if (current !== undefined && current.mode !== 'tree') {
        // content read later: only checked now, without copying it
        if (nextAmpersand < i) {
          nextAmpersand = bytes.indexOf(0x26 /* & */, i);
          if (nextAmpersand < 0) nextAmpersand = length;
        }
        if (nextAmpersand < end) {
          const after = referencesEnd(bytes, nextAmpersand, end);
          if (after < 0) {
            // decodeReferences refuses every reference referenceEnd does, and names it
            decodeReferences(doc.toString('utf8', i, end));
            throw notWellFormed('a reference that is not valid');
          }
          nextAmpersand = after;
        }
      } else {
        const text = decodeReferences(doc.toString('utf8', i, end));
        if (current !== undefined) current.text += text;
        else if (text.trim() !== '') throw new XmlError('a document has exactly one root element');
      }
    }
    if (lt < 0) break;
    const next = byteAt(lt + 1);
    if (next === 0x2f /* / */) {
      // `</name>`, with optional whitespace before `>`
      const gt = bytes.indexOf(0x3e /* > */, lt);
      if (current === undefined || gt < 0) throw notWellFormed('an end tag that closes nothing');
      const nameEnd = lt + 2 + current.name.length;
      if (
        !hasAsciiAt(doc, current.name, lt + 2) ||
        !isBlank(doc, nameEnd, gt) ||
        !isNameEnd(byteAt(nameEnd))
      ) {
        throw notWellFormed(`an end tag that does not close <${current.name}>`);
      }
      stack.pop();
      if (indexing && stack.length === lazyDepth + 1) childIndex?.close(gt + 1);
      const done = close(current, gt + 1);
      current = stack.at(-1);
      if (current === undefined) root = done;
      else if (done !== undefined) pending.push(done);
      i = gt + 1;
    } else if (next === 0x21 /* ! */) {
      if (hasAsciiAt(doc, '<!--', lt)) {
        const end = doc.indexOf('-->', lt + 4);
        if (end < 0) throw notWellFormed('an unclosed comment');
        i = end + 3;
      } else if (hasAsciiAt(doc, '<![CDATA[', lt)) {
        const end = doc.indexOf(']]>', lt + 9);
        if (end < 0 || current === undefined) throw notWellFormed('a broken CDATA section');
        if (current.mode === 'tree') current.text += doc.toString('utf8', lt + 9, end);
        i = end + 3;
      } else {
        throw notWellFormed('an unknown "<!" construct');
      }
    } else if (next === 0x3f /* ? */) {
      const end = doc.indexOf('?>', lt + 2);
      if (end < 0) throw notWellFormed('an unclosed processing instruction');
      i = end + 2;
    } else {
      let nameEnd = lt + 1;
      let hash = 0;
      while (nameEnd < length) {
        const code = byteAt(nameEnd);
        if (isNameEnd(code)) break;
        hash = (Math.imul(hash, 31) + code) | 0;
        nameEnd++;
      }
      if (nameEnd === lt + 1) throw notWellFormed('a "<" that starts no tag');
      // a name seen before is taken from the names seen, not copied again
      const seen = seenNames.get(hash);
      const name =
        seen !== undefined && seen.length === nameEnd - lt - 1 && hasAsciiAt(doc, seen, lt + 1)
          ? seen
          : checkedName(doc.toString('utf8', lt + 1, nameEnd), 'element');
      seenNames.set(hash, name);
      const depth = stack.length;
      const mode = depth < lazyDepth ? 'tree' : depth === lazyDepth ? 'sourced' : 'checked';
      if (current === undefined && root !== undefined) {
        throw new XmlError('a document has exactly one root element');
      }
      readStartTag(doc, nameEnd, name, tag, attributeName, mode === 'checked' ? dropped : intern);
      const { end: gt, attributes, empty } = tag;
      if (indexing && depth === lazyDepth + 1) {
        // a child of the element read lazily (open at lazyDepth)
        (childIndex ??= new ChildIndexBuilder()).open(lt, gt, name);
        if (empty) childIndex.close(gt + 1);
      }
      i = gt + 1;
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

/** A start tag as `readStartTag` read it (one object per parse, filled again for each tag). */
interface StartTag {
  /** Where its `>` is. */
  end: number;
  attributes: Record<string, string> | undefined;
  /** An empty element's (`/>`). */
  empty: boolean;
}

/**
 * Reads into `tag` the start tag whose name ends at `from`, up to its `>`:
 * `name="value"` or `name='value'`, each after XML's white space (U+0020,
 * tab, CR, LF; nothing else). `attributeName` makes a name of its bytes and
 * checks it; `valueOf` keeps a value once its references are decoded.
 * Throws XmlError for anything else.
 */
function readStartTag(
  doc: Buffer,
  from: number,
  name: string,
  tag: StartTag,
  attributeName: (from: number, to: number) => string,
  valueOf: (value: string) => string,
): void {
  let attributes: Record<string, string> | undefined;
  let k = from;
  for (;;) {
    const spaceFrom = k;
    while (isSpace(doc[k] ?? -1)) k++;
    const byte = doc[k] ?? -1;
    if (byte === 0x3e /* > */ || (byte === 0x2f /* / */ && doc[k + 1] === 0x3e)) {
      tag.end = byte === 0x3e ? k : k + 1;
      tag.attributes = attributes;
      tag.empty = byte === 0x2f;
      return;
    }
    const nameFrom = k;
    while (isAttributeNameByte(doc[k] ?? -1)) k++;
    const nameTo = k;
    while (isSpace(doc[k] ?? -1)) k++;
    if (nameFrom === spaceFrom || nameTo === nameFrom || doc[k] !== 0x3d /* = */) {
      throw notWellFormed(`a broken start tag <${name}>`);
    }
    k++;
    while (isSpace(doc[k] ?? -1)) k++;
    const quote = doc[k] ?? -1;
    const close = quote === 0x22 /* " */ || quote === 0x27 /* ' */ ? doc.indexOf(quote, k + 1) : -1;
    if (close < 0) throw notWellFormed(`a broken start tag <${name}>`);
    const attribute = attributeName(nameFrom, nameTo);
    attributes ??= {};
    if (Object.hasOwn(attributes, attribute)) {
      throw notWellFormed(`the attribute "${attribute}" twice`);
    }
    const value = doc.toString('utf8', k + 1, close);
    if (value.includes('<')) throw new XmlError('"<" in an attribute value');
    attributes[attribute] = valueOf(decodeReferences(value));
    k = close + 1;
  }
}

/** A byte of an attribute's name as written: any above U+0020 but `=`, `/` and `>` (the name is checked whole). */
function isAttributeNameByte(byte: number): boolean {
  return byte > 0x20 && byte !== 0x3d && byte !== 0x2f && byte !== 0x3e;
}

/** The document as UTF-8 bytes (a Buffer view of them, not a copy). */
function utf8Bytes(document: string | Uint8Array): Buffer {
  if (typeof document === 'string') {
    // UTF-8 cannot carry a lone surrogate (nor can XML 1.0)
    if (!document.isWellFormed()) throw new XmlError('a character XML 1.0 cannot carry');
    return Buffer.from(document);
  }
  if (!isUtf8(document)) throw new XmlError('a document that is not valid UTF-8');
  return Buffer.isBuffer(document)
    ? document
    : Buffer.from(document.buffer, document.byteOffset, document.byteLength);
}

/**
 * Where the references from the `&` at `at` up to `to` end: the next `&` at
 * or after `to` (or the document's length), or -1 when one of them is not
 * valid, as `decodeReferences` judges them.
 */
function referencesEnd(doc: Uint8Array, at: number, to: number): number {
  let k = at;
  while (k >= 0 && k < to) {
    const end = referenceEnd(doc, k);
    if (end < 0) return -1;
    k = doc.indexOf(0x26 /* & */, end);
  }
  return k < 0 ? doc.length : k;
}

/** The end of a valid reference at `at` (past its `;`), or -1. */
function referenceEnd(doc: Uint8Array, at: number): number {
  let k = at + 1;
  let code: number;
  if (doc[k] === 0x23 /* # */) {
    const hex = doc[k + 1] === 0x78; /* x */
    k += hex ? 2 : 1;
    const from = k;
    code = 0;
    for (;;) {
      const digit = digitValue(doc[k] ?? -1, hex);
      if (digit < 0) break;
      code = code * (hex ? 16 : 10) + digit;
      k++;
    }
    if (k === from || k - from > (hex ? 6 : 7) || doc[k] !== 0x3b /* ; */) return -1;
    const allowed =
      code === 0x09 ||
      code === 0x0a ||
      code === 0x0d ||
      (code >= 0x20 && code <= 0xd7ff) ||
      (code >= 0xe000 && code <= 0xfffd) ||
      (code >= 0x10000 && code <= 0x10ffff);
    return allowed ? k + 1 : -1;
  }
  const from = k;
  while (isAsciiLetter(doc[k] ?? -1)) k++;
  if (doc[k] !== 0x3b /* ; */) return -1;
  for (const name of predefinedNames) {
    if (name.length === k - from && hasAsciiAt(doc, name, from)) return k + 1;
  }
  return -1;
}

function digitValue(byte: number, hex: boolean): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (!hex) return -1;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

function isAsciiLetter(byte: number): boolean {
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
}

/** True when the bytes hold `<!DOCTYPE` or `<!ENTITY`, in any case. */
function hasDeclaration(doc: Buffer): boolean {
  for (let k = doc.indexOf('<!'); k >= 0; k = doc.indexOf('<!', k + 2)) {
    if (hasAsciiAt(doc, 'DOCTYPE', k + 2, true) || hasAsciiAt(doc, 'ENTITY', k + 2, true)) {
      return true;
    }
  }
  return false;
}

/** True when the bytes at `at` are the ASCII `text` (`anyCase`: in upper or lower case). */
function hasAsciiAt(doc: Uint8Array, text: string, at: number, anyCase = false): boolean {
  for (let k = 0; k < text.length; k++) {
    let byte = doc[at + k] ?? -1;
    if (anyCase && byte >= 0x61 && byte <= 0x7a) byte -= 0x20;
    if (byte !== text.charCodeAt(k)) return false;
  }
  return true;
}

/** True when the bytes from `from` up to `to` are only XML's white space. */
function isBlank(doc: Buffer, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (!isSpace(doc[k] ?? -1)) return false;
  return true;
}

/** Whitespace, `/` or `>`: what ends a tag's name. */
function isNameEnd(code: number): boolean {
  return isSpace(code) || code === 0x2f || code === 0x3e;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
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
const predefinedNames = Object.keys(predefined);

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
    chunks.push(typeof chunk === 'string' ? chunk : utf8Text(chunk));
  }
  return chunks.join('');
}

function utf8Text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/**
 * `buildXml` as the document's text in order, a chunk every few hundred
 * elements (a pause between two), for a caller that wants no single string
 * of a large document (xml-slices.ts, `buildXmlBytesInSlices`). An element
 * read lazily and left untouched comes as its UTF-8 bytes, as the document
 * had them (a view of them, not a copy).
 */
export function* buildXmlChunks(
  root: XmlElement,
  options: { declaration?: boolean } = {},
): Generator<string | Uint8Array, void, void> {
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
  /** What is ready to go out at the next pause: joined pieces and untouched elements' bytes. */
  let ready: Array<string | Uint8Array> = [];
  const emitBytes = (bytes: Uint8Array): void => {
    if (pieces.length > 0) ready.push(pieces.join(''));
    pieces = [];
    ready.push(bytes);
  };
  const flush = (): Array<string | Uint8Array> => {
    if (pieces.length > 0 || ready.length === 0) ready.push(pieces.join(''));
    pieces = [];
    const out = ready;
    ready = [];
    return out;
  };
  if (options.declaration === true) emit('<?xml version="1.0" encoding="UTF-8"?>');
  // Depth-first without recursion: each entry is an element, its content and the index of its next part.
  const stack: Array<{
    node: XmlElement;
    content: ReadonlyArray<XmlNode | Uint8Array>;
    next: number;
  }> = [];
  let tokens = 0;
  const open = (node: XmlElement): void => {
    if (node instanceof SourcedElement) {
      // as the document had it: well-formed, its names checked when it was read
      const source = node.source;
      if (!isXmlBytes(source)) throw new XmlError('a character XML 1.0 cannot carry');
      emitBytes(source);
      return;
    }
    emit(tagsOf(node.name).open);
    for (const [attribute, value] of Object.entries(node.attributes)) {
      emit(` ${checkedName(attribute)}="${escaped(value)}"`);
    }
    const content = isWrittenInParts(node) ? node[contentParts] : node.children;
    if (content.some((part) => part instanceof Uint8Array || isElement(part) || part.text !== '')) {
      emit('>');
      stack.push({ node, content, next: 0 });
    } else {
      emit('/>');
    }
  };
  open(root);
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    if (++tokens % tokensPerStep === 0) yield* flush();
    const child = top.content[top.next++];
    if (child === undefined) {
      emit(tagsOf(top.node.name).close);
      stack.pop();
    } else if (child instanceof Uint8Array) {
      if (!isXmlBytes(child)) throw new XmlError('a character XML 1.0 cannot carry');
      emitBytes(child);
    } else if (isElement(child)) {
      open(child);
    } else {
      emit(escaped(child.text));
    }
  }
  yield* flush();
}

/**
 * True when valid UTF-8 bytes hold no character XML 1.0 cannot carry (as
 * `isXmlText`; a lone surrogate cannot be valid UTF-8).
 */
function isXmlBytes(bytes: Uint8Array): boolean {
  for (let k = 0; k < bytes.length; k++) {
    const byte = bytes[k] ?? 0;
    if (byte < 0x20) {
      if (byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
    } else if (byte === 0xef && bytes[k + 1] === 0xbf && ((bytes[k + 2] ?? 0) & 0xfe) === 0xbe) {
      return false; // U+FFFE, U+FFFF
    }
  }
  return true;
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
