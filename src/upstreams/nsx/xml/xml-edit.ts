/** Edits of an element that keep every other child and attribute where it was. Pure. */
import { element, isElement, type XmlElement, type XmlNode } from './xml.ts';

/**
 * Puts `child` in place of the first child of the same name (dropping any
 * further ones), or, when there is none, inserts it where `order` (the
 * canonical order of the names) says: after the nearest present name that
 * comes before it, else before the nearest that comes after it, else last.
 */
export function setChild(
  parent: XmlElement,
  child: XmlElement,
  order: readonly string[] = [],
): XmlElement {
  const children = [...parent.children];
  const at = children.findIndex((node) => isElement(node) && node.name === child.name);
  if (at >= 0) {
    const rest = children
      .slice(at + 1)
      .filter((node) => !(isElement(node) && node.name === child.name));
    return element(parent.name, parent.attributes, [...children.slice(0, at), child, ...rest]);
  }
  children.splice(insertionIndex(children, child.name, order), 0, child);
  return element(parent.name, parent.attributes, children);
}

function insertionIndex(children: readonly XmlNode[], name: string, order: readonly string[]) {
  const rank = order.indexOf(name);
  if (rank < 0) return children.length;
  const before = new Set(order.slice(0, rank));
  const after = new Set(order.slice(rank + 1));
  for (let i = children.length - 1; i >= 0; i--) {
    const node = children[i];
    if (node !== undefined && isElement(node) && before.has(node.name)) return i + 1;
  }
  const next = children.findIndex((node) => isElement(node) && after.has(node.name));
  return next >= 0 ? next : children.length;
}

export function removeChildren(parent: XmlElement, name: string): XmlElement {
  return element(
    parent.name,
    parent.attributes,
    parent.children.filter((node) => !(isElement(node) && node.name === name)),
  );
}

/** Sets an attribute (kept in place when present, added last otherwise); null removes it. */
export function setAttribute(node: XmlElement, name: string, value: string | null): XmlElement {
  const entries = Object.entries(node.attributes).filter(([n]) => value !== null || n !== name);
  const attributes = Object.fromEntries(entries);
  if (value !== null) attributes[name] = value;
  return element(node.name, attributes, node.children);
}
