/**
 * The simulator's own XML reading and writing (it shares no code with the
 * gateway's xml.ts, so that the two cannot agree on the same mistake). Like
 * the manager, it refuses DTDs and undeclared entities.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export interface SimElement {
  tag: string;
  attrs: Array<[string, string]>;
  kids: SimNode[];
}

export type SimNode = SimElement | string;

export class SimXmlError extends Error {}

const reader = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  cdataPropName: '__cdata',
  ignoreDeclaration: true,
  ignorePiTags: true,
});

const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function unescape(raw: string): string {
  return raw.replace(/&([^;&\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) throw new SimXmlError('bare & in text');
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number(ref.slice(1)));
    const value = named[ref];
    if (value === undefined) throw new SimXmlError(`undeclared entity &${ref};`);
    return value;
  });
}

export function readXml(text: string): SimElement {
  if (/<!(DOCTYPE|ENTITY)/i.test(text)) throw new SimXmlError('DTDs are not accepted');
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- fast-xml-parser's re-export of fast-xml-validator
  if (XMLValidator.validate(text) !== true) throw new SimXmlError('not well-formed');
  const top = convert(reader.parse(text) as Array<Record<string, unknown>>);
  const roots = top.filter((node): node is SimElement => typeof node !== 'string');
  if (roots.length !== 1 || top.some((n) => typeof n === 'string' && n.trim() !== '')) {
    throw new SimXmlError('one root element expected');
  }
  return roots[0] as SimElement;
}

function convert(items: Array<Record<string, unknown>>): SimNode[] {
  const out: SimNode[] = [];
  for (const item of items) {
    const tag = Object.keys(item).find((key) => key !== ':@');
    if (tag === undefined || tag.startsWith('?')) continue;
    if (tag === '#text') out.push(unescape(item[tag] as string));
    else if (tag === '__cdata') {
      out.push((item[tag] as Array<{ '#text'?: string }>).map((t) => t['#text'] ?? '').join(''));
    } else {
      const attrs = Object.entries((item[':@'] ?? {}) as Record<string, string>).map(
        ([name, value]): [string, string] => [name, unescape(value)],
      );
      out.push({ tag, attrs, kids: convert(item[tag] as Array<Record<string, unknown>>) });
    }
  }
  return out;
}

function escape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\r/g, '&#13;');
}

function escapeAttr(text: string): string {
  return escape(text).replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

/** Writes a document, indented where an element holds only elements. */
export function writeXml(root: SimElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${write(root, '')}\n`;
}

function write(node: SimElement, indent: string): string {
  const attrs = node.attrs.map(([name, value]) => ` ${name}="${escapeAttr(value)}"`).join('');
  if (node.kids.length === 0) return `${indent}<${node.tag}${attrs}/>`;
  const onlyElements =
    node.kids.some((k) => typeof k !== 'string') &&
    node.kids.every((k) => typeof k !== 'string' || k.trim() === '');
  if (onlyElements) {
    const inner = node.kids
      .filter((k): k is SimElement => typeof k !== 'string')
      .map((k) => write(k, `${indent}  `))
      .join('\n');
    return `${indent}<${node.tag}${attrs}>\n${inner}\n${indent}</${node.tag}>`;
  }
  const inner = node.kids.map((k) => (typeof k === 'string' ? escape(k) : write(k, ''))).join('');
  return `${indent}<${node.tag}${attrs}>${inner}</${node.tag}>`;
}

export function el(
  tag: string,
  kids: SimNode[] = [],
  attrs: Array<[string, string]> = [],
): SimElement {
  return { tag, attrs, kids };
}

/** `<tag>text</tag>` */
export function leaf(tag: string, text: string | number | boolean): SimElement {
  const value = String(text);
  return el(tag, value === '' ? [] : [value]);
}

export function kids(node: SimElement, tag?: string): SimElement[] {
  return node.kids.filter(
    (k): k is SimElement => typeof k !== 'string' && (tag === undefined || k.tag === tag),
  );
}

export function kid(node: SimElement, tag: string): SimElement | undefined {
  return kids(node, tag)[0];
}

export function textIn(node: SimElement): string {
  return node.kids.filter((k): k is string => typeof k === 'string').join('');
}

/** Text of the first child `tag`; undefined when absent. */
export function kidText(node: SimElement, tag: string): string | undefined {
  const found = kid(node, tag);
  return found === undefined ? undefined : textIn(found);
}

export function attr(node: SimElement, name: string): string | undefined {
  return node.attrs.find(([n]) => n === name)?.[1];
}

/** Every text in the subtree, for "is this object referenced" checks. */
export function allTexts(node: SimElement): string[] {
  return node.kids.flatMap((k) => (typeof k === 'string' ? [k.trim()] : allTexts(k)));
}
