/**
 * An element read lazily with some of its children changed, written back
 * with the unchanged ones as the bytes they stood as: runs of its indexed
 * children (xml.ts, `ChildIndex`) and new elements, in order. A firewall edit
 * splices one rule among thousands this way with a few objects, not one per
 * rule (BENCHMARKS.md, large XML).
 */
import {
  childIndexOf,
  ChildIndex,
  contentParts,
  isElement,
  type WrittenInParts,
  type XmlElement,
  type XmlNode,
} from './xml.ts';

/** Children `first` to `last` of the index, written as they stood, with what lies between them. */
export interface ChildRun {
  readonly first: number;
  readonly last: number;
}

export type Piece = XmlElement | ChildRun;

/** An element's children as pieces, and the index their runs refer to. */
export interface Pieces {
  readonly index: ChildIndex;
  readonly pieces: readonly Piece[];
}

function isRun(piece: Piece): piece is ChildRun {
  return 'first' in piece;
}

class SplicedElement implements WrittenInParts {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly index: ChildIndex;
  readonly pieces: readonly Piece[];
  #children: readonly XmlNode[] | undefined;

  constructor(original: XmlElement, { index, pieces }: Pieces) {
    this.name = original.name;
    this.attributes = original.attributes;
    this.index = index;
    this.pieces = pieces;
  }

  /** The child elements, each run's read lazily (the text between them is not kept). */
  get children(): readonly XmlNode[] {
    this.#children ??= mapItems(this, (item) =>
      typeof item === 'number' ? this.index.element(item) : item,
    );
    return this.#children;
  }

  get [contentParts](): ReadonlyArray<XmlElement | Uint8Array> {
    return this.pieces.map((piece) =>
      isRun(piece) ? this.index.bytes(piece.first, piece.last) : piece,
    );
  }
}

/** `original` (read lazily, or spliced before) with its children as `pieces` say. */
export function splicedElement(original: XmlElement, pieces: Pieces): XmlElement {
  return new SplicedElement(original, pieces);
}

/**
 * An element's children as pieces: one run of all of them for an element
 * read lazily with its children indexed, the pieces of a spliced one, none
 * for an element without child elements; undefined for any other.
 */
export function piecesOf(node: XmlElement): Pieces | undefined {
  if (node instanceof SplicedElement) return node;
  const index = childIndexOf(node);
  if (index !== undefined) {
    return { index, pieces: index.count === 0 ? [] : [{ first: 0, last: index.count - 1 }] };
  }
  return node.children.some(isElement) ? undefined : { index: ChildIndex.empty, pieces: [] };
}

/** Each item of the pieces in order (a child's number in the index, or a new element), mapped. */
export function mapItems<T>({ pieces }: Pieces, map: (item: number | XmlElement) => T): T[] {
  const mapped: T[] = [];
  for (const piece of pieces) {
    if (!isRun(piece)) mapped.push(map(piece));
    else for (let i = piece.first; i <= piece.last; i++) mapped.push(map(i));
  }
  return mapped;
}

/** The pieces with `removed` items taken out at item `at`, and `inserted` put there. */
export function splicePieces(
  { index, pieces }: Pieces,
  at: number,
  removed: number,
  inserted: readonly XmlElement[],
): Pieces {
  const spliced: Piece[] = [];
  const end = at + removed;
  let placed = false;
  let item = 0;
  for (const piece of pieces) {
    const size = isRun(piece) ? piece.last - piece.first + 1 : 1;
    const pieceEnd = item + size;
    if (isRun(piece)) {
      const before = Math.min(at, pieceEnd) - item;
      if (before > 0) spliced.push({ first: piece.first, last: piece.first + before - 1 });
      if (!placed && at < pieceEnd) {
        spliced.push(...inserted);
        placed = true;
      }
      const after = Math.max(end, item) - item;
      if (after < size) spliced.push({ first: piece.first + after, last: piece.last });
    } else {
      if (!placed && at <= item) {
        spliced.push(...inserted);
        placed = true;
      }
      if (item < at || item >= end) spliced.push(piece);
    }
    item = pieceEnd;
  }
  if (!placed) spliced.push(...inserted);
  return { index, pieces: spliced };
}
