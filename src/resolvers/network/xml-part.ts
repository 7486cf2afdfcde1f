import { upstreamJson } from '../../json-bounds.ts';
import { elementToJson } from '../../upstreams/nsx/xml/xml-json.ts';
import type { XmlElement } from '../../upstreams/nsx/xml/xml.ts';

/** A rule's XML part as JSON, within the bounds of every JSON value (else UPSTREAM_BAD_RESPONSE from nsx). */
export function xmlPart(element: XmlElement | null): unknown {
  return element === null ? null : upstreamJson('nsx', elementToJson(element));
}
