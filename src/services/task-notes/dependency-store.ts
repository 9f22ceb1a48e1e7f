import type { Brief } from '../../domain/briefs.js';
import { cycleRefused, findCycle } from '../../domain/dependencies.js';
import { ItemDependencyEntity } from '../../db/entities/index.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import type { TaskAggregate } from '../task-aggregate/task-store.js';

/**
 * Writes a brief's dependsOn as edges (each briefed item waits for each item
 * named), replacing what the brief said before, in the brief's own
 * transaction. BAD_USER_INPUT naming the cycle when, with every other brief
 * of the task, the items would wait for each other. The task's row is locked
 * (loadTaskForChange), so two briefs cannot close a cycle between them.
 */
export async function writeBriefEdges(
  uow: UnitOfWork,
  aggregate: TaskAggregate,
  noteId: number,
  itemIds: readonly number[],
  brief: Brief,
): Promise<void> {
  const others = (await uow.manager.findBy(ItemDependencyEntity, { taskId: aggregate.task.id })).filter((row) => row.noteId !== noteId);
  const rows = itemIds.flatMap((itemId) => brief.dependsOn.map((dependency) => ({
    noteId, itemId, dependsOnId: Number(dependency.item), taskId: aggregate.task.id, reason: dependency.reason,
  })));
  // The brief's own edges first, so the cycle named starts at an item this brief is on.
  const cycle = findCycle([...rows, ...others].map((row) => ({ item: String(row.itemId), dependsOn: String(row.dependsOnId) })));
  if (cycle) {
    const labels = new Map(aggregate.items.map((item) => [String(item.id), item.text]));
    throw cycleRefused(cycle, (id) => labels.get(id) ?? '');
  }
  await deleteBriefEdges(uow, noteId);
  if (rows.length) await uow.manager.createQueryBuilder().insert().into(ItemDependencyEntity).values(rows).updateEntity(false).execute();
}

/** The brief is gone: so are the waits it stated. */
export async function deleteBriefEdges(uow: UnitOfWork, noteId: number): Promise<void> {
  await uow.manager.delete(ItemDependencyEntity, { noteId });
}
