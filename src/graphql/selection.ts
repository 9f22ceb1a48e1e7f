import type { GraphQLResolveInfo, SelectionSetNode } from 'graphql';

/**
 * True when the field being resolved asks for nothing but `fields` (and
 * __typename) in its selection, wherever the query wrote them: through
 * fragments and inline fragments too. A resolver uses it to answer from a
 * cheaper read (a count instead of a page) when that is all the answer shows.
 * A directive (@include, @skip) on any part makes it answer false: the cheap
 * read is only taken when the selection is plain.
 */
export function asksOnlyFor(info: GraphQLResolveInfo, fields: readonly string[]): boolean {
  const allowed = new Set([...fields, '__typename']);
  const plain = (set: SelectionSetNode | undefined, depth: number): boolean => {
    if (!set || depth > 10) return false;
    return set.selections.every((selection) => {
      if (selection.directives?.length) return false;
      if (selection.kind === 'Field') return allowed.has(selection.name.value);
      if (selection.kind === 'InlineFragment') return plain(selection.selectionSet, depth + 1);
      const fragment = info.fragments[selection.name.value];
      return fragment !== undefined && plain(fragment.selectionSet, depth + 1);
    });
  };
  return info.fieldNodes.every((node) => plain(node.selectionSet, 0));
}
