import type { EntityManager } from 'typeorm';
import { LIST_CURSOR, decodeCursor, pageFrom, pageSize, rowNotInList, type Page } from '../../domain/paging.js';
import { keysetPage } from '../kernel/keyset-page.js';
import { plainRows } from '../kernel/plain-rows.js';
import { memoriesWithIds } from '../memories/memory-reader.js';
import { itemsOfTaskIds, itemsWithIds } from '../task-aggregate/item-rows.js';
import { parseId } from '../../domain/task-rules.js';
import { ItemEntity, MemoryEntity, TaskEventEntity } from '../../db/entities/index.js';

/**
 * The live items of these tasks, each task's in list order, read as plain
 * rows: at most ITEMS_PER_TASK_MAX per task, however many deleted ones it
 * keeps (those are read by id, or a page at a time, where an answer shows one).
 */
function liveItemsOfTaskIds(manager: EntityManager, taskIds: readonly number[]): Promise<ItemEntity[]> {
  if (taskIds.length === 0) return Promise.resolve([]);
  return plainRows(manager, manager.createQueryBuilder(ItemEntity, 'i')
    .where('i."taskId" IN (:...taskIds) AND i."deleted" = :deleted', { taskIds: [...new Set(taskIds)], deleted: false })
    .orderBy('i."position"', 'ASC')
    .addOrderBy('i."id"', 'ASC'));
}

/**
 * Reads for tasks and items, shaped for batching: every `...ByIds` takes
 * many keys and answers in one statement (the GraphQL layer wraps them in
 * per-request DataLoaders).
 */
export class TaskReader {
  constructor(private readonly reader: () => EntityManager) {}

  async memoriesByIds(ids: readonly string[]): Promise<(MemoryEntity | null)[]> {
    const numeric = ids.map(parseId).filter((id): id is number => id !== null);
    const rows = await memoriesWithIds(this.reader(), numeric);
    const byId = new Map(rows.map((row) => [String(row.id), row]));
    return ids.map((id) => byId.get(String(parseId(id))) ?? null);
  }

  async itemsByIds(ids: readonly string[]): Promise<(ItemEntity | null)[]> {
    const numeric = ids.map(parseId).filter((id): id is number => id !== null);
    const rows = await itemsWithIds(this.reader(), numeric);
    const byId = new Map(rows.map((row) => [String(row.id), row]));
    return ids.map((id) => byId.get(String(parseId(id))) ?? null);
  }

  /** Every item of each task, deleted ones included, in list order. */
  async itemsOfTasks(taskIds: readonly number[]): Promise<ItemEntity[][]> {
    const rows = await itemsOfTaskIds(this.reader(), taskIds);
    const byTask = new Map<number, ItemEntity[]>(taskIds.map((taskId) => [taskId, []]));
    for (const row of rows) byTask.get(row.taskId)?.push(row);
    return taskIds.map((taskId) => byTask.get(taskId)!);
  }

  /** The live items of each task, in list order (at most ITEMS_PER_TASK_MAX each). */
  async liveItemsOfTasks(taskIds: readonly number[]): Promise<ItemEntity[][]> {
    const rows = await liveItemsOfTaskIds(this.reader(), taskIds);
    const byTask = new Map<number, ItemEntity[]>(taskIds.map((taskId) => [taskId, []]));
    for (const row of rows) byTask.get(row.taskId)?.push(row);
    return taskIds.map((taskId) => byTask.get(taskId)!);
  }

  /**
   * A page of a task's items, deleted ones included, in list order
   * (Task.items with includeDeleted): keyset-paged in SQL after the cursor's
   * item (its place: position, then id), so a task with thousands of deleted
   * items reads one page of them.
   */
  async itemPage(taskId: number, first: number | null | undefined, after: string | null | undefined): Promise<Page<ItemEntity>> {
    const size = pageSize(first);
    const key = decodeCursor(after, LIST_CURSOR);
    const manager = this.reader();
    const query = manager.createQueryBuilder(ItemEntity, 'i').where('i."taskId" = :taskId', { taskId });
    if (key) {
      const cursorId = parseId(key[0]);
      const cursor = cursorId === null ? null : await manager.findOne(ItemEntity, { where: { id: cursorId, taskId }, select: { id: true, position: true } });
      if (!cursor) throw rowNotInList();
      query.andWhere('(i."position" > :position OR (i."position" = :position AND i."id" > :cursorId))', { position: cursor.position, cursorId: cursor.id });
    }
    const totalCount = await manager.countBy(ItemEntity, { taskId });
    const rows = await plainRows(manager, query.orderBy('i."position"', 'ASC').addOrderBy('i."id"', 'ASC').limit(size + 1));
    return pageFrom(rows, size, (row) => [String(row.id)], totalCount);
  }

  /** A task's history, oldest first (or newest first, DESC), keyset-paged by event id. */
  async history(taskId: number, first: number | null | undefined, after: string | null | undefined, direction: 'ASC' | 'DESC' = 'ASC'): Promise<Page<TaskEventEntity>> {
    const query = this.reader().createQueryBuilder(TaskEventEntity, 'e').where('e.taskId = :taskId', { taskId });
    return keysetPage(query, 'e.id', direction, first, after);
  }
}
