/**
 * The network manager's XML, parsed into an order-preserving tree and built
 * back from one. Pure: no I/O. Built on fast-xml-parser's `preserveOrder`
 * form, so that every element and attribute the gateway does not model comes
 * back out exactly where it was. Documents with a DOCTYPE or entity
 * declaration are refused before any parsing (no entity expansion ever runs);
 * the five predefined entities and character references are decoded here.
 */
import { XMLBuilder, XMLParser, XMLValidator, type XmlBuilderOptions } from 'fast-xml-parser';

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

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  cdataPropName: '#cdata',
  removeNSPrefix: false,
  allowBooleanAttributes: false,
  onDangerousProperty: (name) => {
    throw new XmlError(`the name "${name}" is not accepted`);
  },
});

type OrderedEntry = Record<string, unknown>;

/** Parses a document into its root element; throws XmlError when it is not well-formed or is refused. */
export function parseXml(document: string): XmlElement {
  if (declarationPattern.test(document)) {
    throw new XmlError('a DOCTYPE or entity declaration is refused');
  }
  // Deprecated only in favour of the fast-xml-validator package, which fast-xml-parser re-exports.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const valid = XMLValidator.validate(document);
  if (valid !== true) throw new XmlError(`not well-formed XML (${valid.err.msg.slice(0, 200)})`);
  let ordered: unknown;
  try {
    ordered = parser.parse(document);
  } catch (error) {
    if (error instanceof XmlError) throw error;
    throw new XmlError('not well-formed XML');
  }
  const roots = fromOrdered(ordered as OrderedEntry[]);
  const elements = roots.filter(isElement);
  if (elements.length !== 1 || roots.some((node) => !isElement(node) && node.text.trim() !== '')) {
    throw new XmlError('a document has exactly one root element');
  }
  return elements[0] as XmlElement;
}

function fromOrdered(entries: readonly OrderedEntry[]): XmlNode[] {
  const nodes: XmlNode[] = [];
  const pushText = (text: string): void => {
    const last = nodes.at(-1);
    if (last !== undefined && !isElement(last))
      nodes[nodes.length - 1] = { text: last.text + text };
    else if (text !== '') nodes.push({ text });
  };
  for (const entry of entries) {
    const key = Object.keys(entry).find((k) => k !== ':@');
    if (key === undefined) continue;
    const value = entry[key];
    if (key === '#text') {
      pushText(decodeReferences(String(value)));
    } else if (key === '#cdata') {
      const inner = value as OrderedEntry[];
      pushText(
        inner.map((part) => (typeof part['#text'] === 'string' ? part['#text'] : '')).join(''),
      );
    } else if (key.startsWith('?') || key.startsWith('!')) {
      continue;
    } else {
      nodes.push(toElement(key, entry[':@'], value as OrderedEntry[]));
    }
  }
  return nodes;
}

function toElement(name: string, rawAttributes: unknown, content: OrderedEntry[]): XmlElement {
  if (!isXmlName(name)) throw new XmlError(`"${name}" is not an accepted element name`);
  const attributes = Object.fromEntries(
    Object.entries((rawAttributes ?? {}) as Record<string, unknown>).map(([attr, raw]) => {
      const value = String(raw);
      if (!isXmlName(attr)) throw new XmlError(`"${attr}" is not an accepted attribute name`);
      if (value.includes('<')) throw new XmlError('"<" in an attribute value');
      return [attr, decodeReferences(value)];
    }),
  );
  let children = fromOrdered(content);
  // Indentation between child elements is not content.
  if (children.some(isElement) && children.every((c) => isElement(c) || c.text.trim() === '')) {
    children = children.filter(isElement);
  }
  return element(name, attributes, children);
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

interface BuilderWithEntities extends XmlBuilderOptions {
  entities: ReadonlyArray<{ regex: RegExp; val: string }>;
}

const builderOptions: BuilderWithEntities = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
  processEntities: true,
  format: false,
  // `&` first. Tab, line feed and carriage return as references so that they
  // survive attribute-value normalisation and line-end normalisation.
  entities: [
    { regex: /&/g, val: '&amp;' },
    { regex: /</g, val: '&lt;' },
    { regex: />/g, val: '&gt;' },
    { regex: /"/g, val: '&quot;' },
    { regex: /'/g, val: '&apos;' },
    { regex: /\t/g, val: '&#9;' },
    { regex: /\n/g, val: '&#10;' },
    { regex: /\r/g, val: '&#13;' },
  ],
};

// Deprecated only in favour of the fast-xml-builder package, which fast-xml-parser re-exports.
// eslint-disable-next-line @typescript-eslint/no-deprecated
const builder = new XMLBuilder(builderOptions);

/** Writes a document; every text and attribute value is escaped. Throws XmlError on a name or character XML cannot carry. */
export function buildXml(root: XmlElement, options: { declaration?: boolean } = {}): string {
  const body = [toOrdered(root)];
  const declaration = { '?xml': [], ':@': { version: '1.0', encoding: 'UTF-8' } };
  return builder.build(options.declaration === true ? [declaration, ...body] : body);
}

function toOrdered(node: XmlElement): OrderedEntry {
  if (!isXmlName(node.name)) throw new XmlError(`"${node.name}" is not an XML name`);
  const content: OrderedEntry[] = [];
  for (const child of node.children) {
    if (isElement(child)) content.push(toOrdered(child));
    else if (child.text !== '') content.push({ '#text': checkedText(child.text) });
  }
  const attributes = Object.entries(node.attributes);
  for (const [attr, value] of attributes) {
    if (!isXmlName(attr)) throw new XmlError(`"${attr}" is not an XML name`);
    checkedText(value);
  }
  const entry: OrderedEntry = { [node.name]: content };
  if (attributes.length > 0) entry[':@'] = Object.fromEntries(attributes);
  return entry;
}

function checkedText(text: string): string {
  if (!isXmlText(text)) throw new XmlError('a character XML 1.0 cannot carry');
  return text;
}
