/** Typed reads of an NSX object's child elements; a missing or malformed field is a bad response. */
import { UpstreamBadResponseError } from '../../errors.ts';
import type { GroupingRecord, ScopeRecord, WithXml } from './wire.ts';
import { childElement, childText, type XmlElement } from './xml/xml.ts';

export function badResponse(
  reason: string,
  status: number | null = null,
): UpstreamBadResponseError {
  return new UpstreamBadResponseError('nsx', reason, status);
}

export function requireRoot(root: XmlElement, name: string): XmlElement {
  if (root.name !== name) throw badResponse(`<${name}> expected, got <${root.name}>`);
  return root;
}

export function requiredText(parent: XmlElement, name: string): string {
  const text = childText(parent, name);
  if (text === undefined) throw badResponse(`<${parent.name}> without <${name}>`);
  return text;
}

/** Present but empty is `""`; absent is null. */
export function optionalText(parent: XmlElement, name: string): string | null {
  return childText(parent, name) ?? null;
}

/** A required identifier: trimmed and non-empty. */
export function requiredId(parent: XmlElement, name: string): string {
  const id = requiredText(parent, name).trim();
  if (id === '') throw badResponse(`<${parent.name}> with an empty <${name}>`);
  return id;
}

export function optionalInteger(parent: XmlElement, name: string): number | null {
  const text = childText(parent, name)?.trim();
  if (text === undefined || text === '') return null;
  if (!/^-?\d{1,15}$/.test(text)) throw badResponse(`<${name}> is not a whole number`);
  return Number(text);
}

export function optionalBoolean(parent: XmlElement, name: string): boolean | null {
  const text = childText(parent, name)?.trim();
  if (text === undefined || text === '') return null;
  return booleanText(text, `<${name}>`);
}

/** NSX writes booleans as the strings `true` and `false`. */
export function booleanText(text: string, where: string): boolean {
  const lower = text.trim().toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw badResponse(`${where} is neither true nor false`);
}

export function readScope(parent: XmlElement): ScopeRecord | null {
  const scope = childElement(parent, 'scope');
  if (scope === undefined) return null;
  return {
    id: requiredId(scope, 'id'),
    name: optionalText(scope, 'name'),
    objectTypeName: optionalText(scope, 'objectTypeName'),
  };
}

/** The fields an `<ipset>` and an `<application>` share, of an element with root `root`. */
export function readGroupingRecord(node: XmlElement, root: string): WithXml<GroupingRecord> {
  requireRoot(node, root);
  return {
    objectId: requiredId(node, 'objectId'),
    name: requiredText(node, 'name'),
    description: optionalText(node, 'description'),
    revision: optionalInteger(node, 'revision'),
    scope: readScope(node),
    inheritanceAllowed: optionalBoolean(node, 'inheritanceAllowed'),
    xml: node,
  };
}
