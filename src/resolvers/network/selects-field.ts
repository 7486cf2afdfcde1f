import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * True when the field being resolved selects `name` right beneath it,
 * through fragments. Directives are not looked at: a field that `@skip`
 * leaves out still counts, so that the answer errs on the side of reading.
 */
export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  const spread = new Set<string>();
  const inSet = (set: SelectionSetNode | undefined): boolean =>
    set !== undefined &&
    set.selections.some((selection) => {
      if (selection.kind === Kind.FIELD) return selection.name.value === name;
      if (selection.kind === Kind.INLINE_FRAGMENT) return inSet(selection.selectionSet);
      const fragmentName = selection.name.value;
      if (spread.has(fragmentName)) return false;
      spread.add(fragmentName);
      const fragment = info.fragments[fragmentName];
      return fragment === undefined || inSet(fragment.selectionSet);
    });
  return info.fieldNodes.some((node) => inSet(node.selectionSet));
}
