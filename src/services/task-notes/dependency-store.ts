import type { Brief } from '../../domain/briefs.js';
import { checkDependencyCaps, cycleRefused, DEPENDENCIES_PER_TASK_MAX, findCycle } from '../../domain/dependencies.js';
import { ItemDependencyEntity } from '../../db/entities/index.js';
import { itemDependencyColumns, itemDependencyOf } from '../kernel/entity-rows.js';
import { selectRows } from '../kernel/statements.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import type { TaskAggregate } from '../task-aggregate/task-store.js';

/**
 * Writes a brief's dependsOn as edges (each briefed item waits for each item
 * named), replacing what the brief said before, in the brief's own
 * transaction. TOO_LARGE past a dependency cap (domain/dependencies.ts);
 * BAD_USER_INPUT naming the cycle when, with every other brief of the task,
 * the items would wait for each other. The task's row is locked
 * (loadTaskForChange), so two briefs cannot close a cycle between them.
 */
export async function writeBriefEdges(
  uow: UnitOfWork,
  aggregate: TaskAggregate,
  noteId: number,
  itemIds: readonly number[],
  brief: Brief,
): Promise<void> {
  const taskId = aggregate.task.id;
  const rows = itemIds.flatMap((itemId) => brief.dependsOn.map((dependency) => ({
    noteId, itemId, dependsOnId: Number(dependency.item), taskId, reason: dependency.reason,
  })));
  await deleteBriefEdges(uow, noteId);
  // Fewer waits (or none) can neither close a cycle nor pass a cap: nothing else to read.
  if (rows.length === 0) return;
  // The other briefs' edges, at most one past what the task may hold in all: a task written before the caps
  // may hold more, and reading them all would cost what the caps are there to bound.
  const others = (await selectRows(uow.manager, `SELECT ${itemDependencyColumns('d')} FROM "item_dependencies" d WHERE d."taskId" = ? LIMIT ?`,
    [taskId, DEPENDENCIES_PER_TASK_MAX + 1])).map((row) => itemDependencyOf(row));
  const asEdges = (list: readonly ItemDependencyEntity[] | typeof rows) => list.map((row) => ({ item: String(row.itemId), dependsOn: String(row.dependsOnId) }));
  // The brief's own edges first, so the cycle named starts at an item this brief is on.
  const edges = [...asEdges(rows), ...asEdges(others)];
  checkDependencyCaps(String(taskId), edges, edges.slice(0, rows.length));
  const cycle = findCycle(edges);
  if (cycle) {
    const labels = new Map(aggregate.items.map((item) => [String(item.id), item.text]));
    throw cycleRefused(cycle, (id) => labels.get(id) ?? '');
  }
  await uow.manager.createQueryBuilder().insert().into(ItemDependencyEntity).values(rows).updateEntity(false).execute();
}

/** The brief is gone: so are the waits it stated. */
export async function deleteBriefEdges(uow: UnitOfWork, noteId: number): Promise<void> {
  await uow.manager.delete(ItemDependencyEntity, { noteId });
}
