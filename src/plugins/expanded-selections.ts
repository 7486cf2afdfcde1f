import { Kind, type DocumentNode, type SelectionSetNode } from 'graphql';

/**
 * The field selections the largest operation or fragment of `document`
 * expands to once every fragment spread is replaced by its fragment's
 * selections: what an executor or compiler walks, not what the text spells
 * (a fragment spread twice in each of 25 fragments spells 1 KB and expands
 * to 2^25). Each fragment is counted once and its count reused, so the count
 * costs time linear in the document's size. A spread of an unknown fragment,
 * or one inside a cycle, counts nothing (validation refuses both).
 */
export function expandedSelections(document: DocumentNode): number {
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition.selectionSet);
    }
  }
  const counted = new Map<string, number>();
  const counting = new Set<string>();
  const fragmentCount = (name: string): number => {
    const known = counted.get(name);
    if (known !== undefined) return known;
    const set = fragments.get(name);
    if (set === undefined || counting.has(name)) return 0;
    counting.add(name);
    const count = setCount(set);
    counting.delete(name);
    counted.set(name, count);
    return count;
  };
  const setCount = (set: SelectionSetNode): number => {
    let count = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        count += 1 + (selection.selectionSet === undefined ? 0 : setCount(selection.selectionSet));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        count += setCount(selection.selectionSet);
      } else {
        count += fragmentCount(selection.name.value);
      }
    }
    return count;
  };
  let most = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) {
      most = Math.max(most, setCount(definition.selectionSet));
    } else if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      most = Math.max(most, fragmentCount(definition.name.value));
    }
  }
  return most;
}
