import type { FieldNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

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

const nodeFieldsCache = new WeakMap<FieldNode, ReadonlySet<string>>();

/**
 * The names of the fields a connection's `nodes` ask for (through fragments
 * and inline fragments, at any depth below nodes), so a page's resolver can
 * read what its rows' fields will need in one batch before it answers, and
 * those fields then answer without a promise each. Worked out once per
 * document's field (a field written once; one merged from several places,
 * rare, is worked out each time): a directive anywhere counts its fields as
 * asked for, which at worst reads a batch the answer does not show.
 */
export function nodeFieldsOf(info: GraphQLResolveInfo): ReadonlySet<string> {
  const single = info.fieldNodes.length === 1 ? info.fieldNodes[0]! : null;
  const known = single && nodeFieldsCache.get(single);
  if (known) return known;
  const names = new Set<string>();
  const visit = (set: SelectionSetNode | undefined, underNodes: boolean, depth: number): void => {
    if (!set || depth > 20) return;
    for (const selection of set.selections) {
      if (selection.kind === 'Field') {
        if (underNodes) names.add(selection.name.value);
        visit(selection.selectionSet, underNodes || (depth === 0 && selection.name.value === 'nodes'), depth + 1);
      } else {
        const inner = selection.kind === 'InlineFragment' ? selection.selectionSet : info.fragments[selection.name.value]?.selectionSet;
        // A fragment spread sits at the depth of its spread: `nodes` inside it is still the connection's own.
        visit(inner, underNodes, depth);
      }
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet, false, 0);
  if (single) nodeFieldsCache.set(single, names);
  return names;
}
