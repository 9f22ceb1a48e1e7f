import { DomainError, refuse } from './errors.js';

/** One edge: `item` waits for `dependsOn`. */
interface DependencyEdge {
  item: string;
  dependsOn: string;
}

// Bounds on a task's dependency edges (one per briefed item and item waited
// for, per brief), so that writing a brief, checking it for a cycle and
// reading blockedBy, blocks or ready cost what these allow, whatever was
// written before. Edges are counted as stored: the same wait stated by two
// briefs is two edges.
/** Edges by which one item waits for others. */
export const DEPENDENCIES_PER_ITEM_MAX = 50;
/** Edges by which others wait for one item (two full briefs' worth). */
export const WAITERS_PER_ITEM_MAX = 200;
/** Edges in one task. */
export const DEPENDENCIES_PER_TASK_MAX = 2_000;

/**
 * TOO_LARGE when the task's edges after a brief is written (`edges`: every
 * brief's, this one's first) would pass a cap; only counts this brief adds
 * to are checked, so an edit that keeps or removes edges is never refused.
 * Linear in the edges, which the task cap bounds.
 */
export function checkDependencyCaps(taskId: string, edges: readonly DependencyEdge[], added: readonly DependencyEdge[]): void {
  if (added.length === 0) return;
  if (edges.length > DEPENDENCIES_PER_TASK_MAX) {
    throw new DomainError(
      'TOO_LARGE',
      `Task ${taskId} would hold ${edges.length} dependency edges (one per briefed item and item it waits for); a task holds at most ${DEPENDENCIES_PER_TASK_MAX}. ` +
        'Name only direct dependencies (an item that waits for one waiting for X need not name X), brief fewer items at once, or split the work into several tasks.',
      { limit: DEPENDENCIES_PER_TASK_MAX, count: edges.length },
    );
  }
  const waits = new Map<string, number>();
  const waiters = new Map<string, number>();
  for (const edge of edges) {
    waits.set(edge.item, (waits.get(edge.item) ?? 0) + 1);
    waiters.set(edge.dependsOn, (waiters.get(edge.dependsOn) ?? 0) + 1);
  }
  for (const edge of added) {
    const count = waits.get(edge.item)!;
    if (count > DEPENDENCIES_PER_ITEM_MAX) {
      throw new DomainError(
        'TOO_LARGE',
        `Item ${edge.item} would wait by ${count} dependency edges (across its briefs); an item waits by at most ${DEPENDENCIES_PER_ITEM_MAX}. ` +
          'Make it wait for one item that itself waits for the rest (a chain), or drop the waits it does not need.',
        { limit: DEPENDENCIES_PER_ITEM_MAX, count },
      );
    }
  }
  for (const edge of added) {
    const count = waiters.get(edge.dependsOn)!;
    if (count > WAITERS_PER_ITEM_MAX) {
      throw new DomainError(
        'TOO_LARGE',
        `${count} dependency edges would wait for item ${edge.dependsOn}; at most ${WAITERS_PER_ITEM_MAX} may wait for one item. ` +
          'Make a few items wait for it and the rest wait for those, or brief fewer items on it.',
        { limit: WAITERS_PER_ITEM_MAX, count },
      );
    }
  }
}

/**
 * A cycle among the edges, as the ids along it with the first repeated at
 * the end ([3, 5, 3]: 3 waits for 5, which waits for 3); null when there is
 * none. Depth-first from each item in the order given, so the same edges
 * always name the same cycle.
 */
export function findCycle(edges: readonly DependencyEdge[]): string[] | null {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    const targets = next.get(edge.item);
    if (targets) targets.push(edge.dependsOn);
    else next.set(edge.item, [edge.dependsOn]);
  }
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

/** BAD_USER_INPUT naming the cycle a brief (or an item's own `after`) would make, each item by id and label. */
export function cycleRefused(cycle: readonly string[], labelOf: (id: string) => string, by: 'brief' | 'after' = 'brief'): DomainError {
  return refuse(by === 'brief' ? 'DEPENDENCY_CYCLE' : 'AFTER_CYCLE', { itemIds: [...cycle], labels: cycle.map(labelOf) });
}

/** What an item's own `after` is checked against: its task's item ids, which of them are deleted, and what it waited for before. */
interface WaitScope {
  taskItemIds: ReadonlySet<string>;
  deleted: ReadonlySet<string>;
  /** The items its `after` named before: kept even once deleted. */
  kept: ReadonlySet<string>;
}

/** The most items one `after` names: as many as one brief's dependsOn. */
export const AFTER_MAX = 20;

/**
 * The items `itemId` is to wait for by its own `after`, each once in the order
 * given: refused when one is not an item of its task (a wait stays inside its
 * task, as a brief's does), is the item itself, is deleted (unless it was
 * named before), or when more than AFTER_MAX are named.
 */
export function cleanAfter(itemId: string, after: readonly string[], scope: WaitScope): string[] {
  const ids = [...new Set(after.map((id) => String(id).trim()))];
  if (ids.length > AFTER_MAX) throw refuse('AFTER_TOO_MANY', { itemId, count: ids.length, limit: AFTER_MAX });
  for (const id of ids) {
    if (!scope.taskItemIds.has(id)) throw refuse('AFTER_UNKNOWN', { itemId, waitsFor: id });
    if (id === itemId) throw refuse('AFTER_ITSELF', { itemId });
    if (scope.deleted.has(id) && !scope.kept.has(id)) throw refuse('AFTER_DELETED', { itemId, waitsFor: id });
  }
  return ids;
}
