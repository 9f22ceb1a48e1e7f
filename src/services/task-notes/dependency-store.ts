import type { Brief } from '../../domain/briefs.js';
import { checkDependencyCaps, cleanAfter, cycleRefused, DEPENDENCIES_PER_TASK_MAX, findCycle } from '../../domain/dependencies.js';
import { ItemDependencyEntity } from '../../db/entities/index.js';
import { itemDependencyColumns, itemDependencyOf } from '../kernel/entity-rows.js';
import { selectRows } from '../kernel/statements.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import type { TaskAggregate } from '../task-aggregate/task-store.js';

/** An edge as written: `itemId` waits for `dependsOnId`, stated by brief `noteId` (null: by the item's own `after`). */
type EdgeRow = Omit<ItemDependencyEntity, 'id'>;

/**
 * Writes a brief's dependsOn as edges (each briefed item waits for each item
 * named), replacing what the brief said before, in the brief's own
 * transaction. TOO_LARGE past a dependency cap (domain/dependencies.ts);
 * BAD_USER_INPUT naming the cycle when, with every other edge of the task,
 * the items would wait for each other. The task's row is locked
 * (loadTaskForChange), so two writers cannot close a cycle between them.
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
  await insertEdges(uow, aggregate, rows, 'brief');
}

/**
 * Sets what one item waits for by its own `after` (no brief): replaces the
 * edges its earlier `after` wrote, leaves its briefs' edges alone, in the
 * item write's transaction. Refused, with nothing written, for an id outside
 * the task, the item itself, a deleted item, too many ids, a cap or a cycle.
 * Answers whether the item's waits changed (sending what it waits for already
 * records nothing).
 */
export async function writeItemWaits(uow: UnitOfWork, aggregate: TaskAggregate, itemId: number, after: readonly string[]): Promise<boolean> {
  const before = (await uow.manager.findBy(ItemDependencyEntity, { itemId })).filter((row) => row.noteId === null).map((row) => String(row.dependsOnId));
  const ids = cleanAfter(String(itemId), after, {
    taskItemIds: new Set(aggregate.items.map((item) => String(item.id))),
    deleted: new Set(aggregate.items.filter((item) => item.deleted).map((item) => String(item.id))),
    kept: new Set(before),
  });
  if (ids.length === before.length && ids.every((id) => before.includes(id))) return false;
  await uow.manager.createQueryBuilder().delete().from(ItemDependencyEntity).where('"itemId" = :itemId AND "noteId" IS NULL', { itemId }).execute();
  const taskId = aggregate.task.id;
  await insertEdges(uow, aggregate, ids.map((id) => ({ noteId: null, itemId, dependsOnId: Number(id), taskId, reason: null })), 'after');
  return true;
}

/**
 * Inserts `rows` after checking them, with every other edge of the task, for
 * the caps and for a cycle (named from the first new edge on). Linear in the
 * task's edges, which the task cap bounds.
 */
async function insertEdges(uow: UnitOfWork, aggregate: TaskAggregate, rows: readonly EdgeRow[], by: 'brief' | 'after'): Promise<void> {
  // Fewer waits (or none) can neither close a cycle nor pass a cap: nothing else to read.
  if (rows.length === 0) return;
  const taskId = aggregate.task.id;
  // The task's other edges, at most one past what the task may hold in all: a task written before the caps
  // may hold more, and reading them all would cost what the caps are there to bound.
  const others = (await selectRows(uow.manager, `SELECT ${itemDependencyColumns('d')} FROM "item_dependencies" d WHERE d."taskId" = ? LIMIT ?`,
    [taskId, DEPENDENCIES_PER_TASK_MAX + 1])).map((row) => itemDependencyOf(row));
  const asEdges = (list: readonly EdgeRow[]) => list.map((row) => ({ item: String(row.itemId), dependsOn: String(row.dependsOnId) }));
  // The new edges first, so the cycle named starts at an item being written.
  const edges = [...asEdges(rows), ...asEdges(others)];
  checkDependencyCaps(String(taskId), edges, edges.slice(0, rows.length));
  const cycle = findCycle(edges);
  if (cycle) {
    const labels = new Map(aggregate.items.map((item) => [String(item.id), item.text]));
    throw cycleRefused(cycle, (id) => labels.get(id) ?? '', by);
  }
  await uow.manager.createQueryBuilder().insert().into(ItemDependencyEntity).values([...rows]).updateEntity(false).execute();
}

/** The brief is gone: so are the waits it stated. */
export async function deleteBriefEdges(uow: UnitOfWork, noteId: number): Promise<void> {
  await uow.manager.delete(ItemDependencyEntity, { noteId });
}
