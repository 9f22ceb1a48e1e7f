import { DomainError } from './errors.js';

/** One edge: `item` waits for `dependsOn`. */
interface DependencyEdge {
  item: string;
  dependsOn: string;
}

/**
 * A cycle among the edges, as the ids along it with the first repeated at
 * the end ([3, 5, 3]: 3 waits for 5, which waits for 3); null when there is
 * none. Depth-first from each item in the order given, so the same edges
 * always name the same cycle.
 */
export function findCycle(edges: readonly DependencyEdge[]): string[] | null {
  const next = new Map<string, string[]>();
  for (const edge of edges) next.set(edge.item, [...(next.get(edge.item) ?? []), edge.dependsOn]);
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (node: string): string[] | null => {
    if (onPath.has(node)) return [...path.slice(path.indexOf(node)), node];
    if (done.has(node)) return null;
    onPath.add(node);
    path.push(node);
    for (const target of next.get(node) ?? []) {
      const cycle = visit(target);
      if (cycle) return cycle;
    }
    path.pop();
    onPath.delete(node);
    done.add(node);
    return null;
  };
  for (const edge of edges) {
    const cycle = visit(edge.item);
    if (cycle) return cycle;
  }
  return null;
}

/** BAD_USER_INPUT naming the cycle a brief would make, each item by id and label. */
export function cycleRefused(cycle: readonly string[], labelOf: (id: string) => string): DomainError {
  const named = cycle.map((id) => `${id} "${labelOf(id)}"`);
  return new DomainError(
    'BAD_USER_INPUT',
    `This brief's dependsOn would make a cycle: item ${named.join(' waits for ')}. Nothing could ever start; drop one of these dependencies.`,
  );
}
