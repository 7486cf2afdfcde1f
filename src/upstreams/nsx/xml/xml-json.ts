/**
 * The JSON form of an XML element's content, as the FirewallRule type of the
 * schema describes it: each child element is a key (a repeated one becomes
 * an array), an element with only text is a string, an attribute is
 * "@name", and the text of an element that also has attributes or children
 * is "#text". Pure, both ways.
 */
import {
  childElements,
  element,
  isXmlName,
  isXmlText,
  textOf,
  type XmlElement,
  type XmlNode,
} from './xml.ts';

export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON value that has no XML form under the convention; `path` names where. */
export class XmlJsonError extends Error {
  readonly path: string;
  constructor(path: string, problem: string) {
    super(`${path}: ${problem}`);
    this.name = 'XmlJsonError';
    this.path = path;
  }
}

const textKey = '#text';

/**
 * The JSON form of an element's content (its attributes, children and text).
 * Built top-down without recursion: a manager's document may nest as deep as
 * the parser lets it.
 */
export function elementToJson(node: XmlElement): JsonValue {
  if (isLeaf(node)) return textOf(node);
  const top: Record<string, JsonValue> = {};
  const pending: Array<{ node: XmlElement; json: Record<string, JsonValue> }> = [
    { node, json: top },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { json } = next;
    for (const [name, value] of Object.entries(next.node.attributes)) json[`@${name}`] = value;
    for (const child of childElements(next.node)) {
      let value: JsonValue;
      if (isLeaf(child)) value = textOf(child);
      else {
        const inner: Record<string, JsonValue> = {};
        pending.push({ node: child, json: inner });
        value = inner;
      }
      const seen = json[child.name];
      if (seen === undefined) json[child.name] = value;
      else if (Array.isArray(seen)) seen.push(value);
      else json[child.name] = [seen, value];
    }
    const text = textOf(next.node);
    if (text !== '') json[textKey] = text;
  }
  return top;
}

function isLeaf(node: XmlElement): boolean {
  return Object.keys(node.attributes).length === 0 && childElements(node).length === 0;
}

/** The element `<name>` whose content has the JSON form `value`; throws XmlJsonError. */
export function jsonToElement(name: string, value: unknown, path: string = name): XmlElement {
  if (!isXmlName(name)) throw new XmlJsonError(path, `"${name}" is not an XML element name`);
  if (isScalar(value)) return element(name, {}, textNodes(scalarText(value, path)));
  if (value === null || value === undefined) {
    throw new XmlJsonError(path, 'null has no XML form; use "" for an empty element');
  }
  if (Array.isArray(value)) {
    throw new XmlJsonError(path, 'an array stands for a repeated element: it needs a key');
  }
  const attributes: Record<string, string> = {};
  const children: XmlNode[] = [];
  let text = '';
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const memberPath = `${path}.${key}`;
    if (key === textKey) {
      if (!isScalar(member)) throw new XmlJsonError(memberPath, 'text must be a string');
      text = scalarText(member, memberPath);
    } else if (key.startsWith('@')) {
      const attribute = key.slice(1);
      if (!isXmlName(attribute)) {
        throw new XmlJsonError(memberPath, `"${attribute}" is not an XML attribute name`);
      }
      if (!isScalar(member)) throw new XmlJsonError(memberPath, 'an attribute must be a string');
      attributes[attribute] = scalarText(member, memberPath);
    } else if (Array.isArray(member)) {
      member.forEach((item: unknown, i) => {
        if (Array.isArray(item)) {
          throw new XmlJsonError(`${memberPath}[${i}]`, 'arrays cannot be nested');
        }
        children.push(jsonToElement(key, item, `${memberPath}[${i}]`));
      });
    } else {
      children.push(jsonToElement(key, member, memberPath));
    }
  }
  return element(name, attributes, [...textNodes(text), ...children]);
}

function isScalar(value: unknown): value is string | number | boolean {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

function scalarText(value: string | number | boolean, path: string): string {
  const text = String(value);
  if (!isXmlText(text)) throw new XmlJsonError(path, 'holds a character XML cannot carry');
  return text;
}

function textNodes(text: string): XmlNode[] {
  return text === '' ? [] : [{ text }];
}

/** True when two elements have the same JSON form (what the convention can tell apart). */
export function sameJson(a: XmlElement, b: unknown): boolean {
  return isDeepEqual(elementToJson(a), b);
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => isDeepEqual(x, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  return (
    aKeys.length === bKeys.length &&
    aKeys.every(
      (k) =>
        Object.hasOwn(b, k) &&
        isDeepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}
