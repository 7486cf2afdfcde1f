/** Edges (`<pagedEdgeList>`, `<edgeSummary>`) off the wire. */
import { badResponse, optionalInteger, optionalText, requireRoot } from '../fields.ts';
import type { EdgeRecord } from '../wire.ts';
import { childElement, childElements, childText, type XmlElement } from '../xml/xml.ts';

/** One `<edgeSummary>`: NSX-v gives `objectId` and `id`, vCNS may give only one of them. */
export function readEdgeSummary(node: XmlElement): EdgeRecord {
  const id = (childText(node, 'objectId') ?? childText(node, 'id'))?.trim() ?? '';
  if (id === '') throw badResponse('<edgeSummary> without <objectId> or <id>');
  const status = optionalText(node, 'edgeStatus') ?? optionalText(node, 'state');
  return {
    id,
    name: optionalText(node, 'name'),
    edgeType: optionalText(node, 'edgeType'),
    status,
    datacenterName: optionalText(node, 'datacenterName'),
  };
}

export interface EdgePage {
  edges: EdgeRecord[];
  /** pagingInfo/totalCount; null when the manager gives none. */
  totalCount: number | null;
}

/** `<pagedEdgeList><edgePage><pagingInfo/><edgeSummary/>…</edgePage></pagedEdgeList>` */
export function readEdgePage(root: XmlElement): EdgePage {
  const page = childElement(requireRoot(root, 'pagedEdgeList'), 'edgePage');
  if (page === undefined) throw badResponse('<pagedEdgeList> without <edgePage>');
  const paging = childElement(page, 'pagingInfo');
  return {
    edges: childElements(page, 'edgeSummary').map(readEdgeSummary),
    totalCount: paging === undefined ? null : optionalInteger(paging, 'totalCount'),
  };
}
