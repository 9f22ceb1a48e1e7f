import type { EntityManager } from 'typeorm';
import { LIST_CURSOR, ROW_CURSOR, decodeCursor, pageFrom, pageSize, rowNotInList, type Page } from '../../domain/paging.js';
import { TASK_EVENT_WIDTH, itemColumns, itemOf, taskEventColumns, taskEventOf } from '../kernel/entity-rows.js';
import { memoriesWithIds } from '../memories/memory-reader.js';
import { distinct, num, placeholders, selectRows } from '../kernel/statements.js';
import { itemsOfTaskIds, itemsWithIds } from '../task-aggregate/item-rows.js';
import { parseId } from '../../domain/task-rules.js';
import type { ItemEntity, MemoryEntity, TaskEventEntity } from '../../db/entities/index.js';

// The reads of tasks and items, as statements of our own (kernel/statements.ts) mapped by entity-rows.ts.
const ITEMS = `SELECT ${itemColumns('i')} FROM "items" i`;
const IN_LIST_ORDER = 'ORDER BY i."position" ASC, i."id" ASC';

/**
 * The live items of these tasks, each task's in list order: at most
 * ITEMS_PER_TASK_MAX per task, however many deleted ones it keeps (those are
 * read by id, or a page at a time, where an answer shows one).
 */
export async function liveItemsOfTaskIds(manager: EntityManager, taskIds: readonly number[]): Promise<ItemEntity[]> {
  if (taskIds.length === 0) return [];
  const tasks = distinct(taskIds);
  const sql = `${ITEMS} WHERE i."taskId" IN (${placeholders(tasks.length)}) AND i."deleted" = ? ${IN_LIST_ORDER}`;
  return (await selectRows(manager, sql, [...tasks, false])).map((row) => itemOf(row));
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
    const parameters: unknown[] = [taskId];
    let sql = `${ITEMS} WHERE i."taskId" = ?`;
    if (key) {
      const cursorId = parseId(key[0]);
      const [cursor] = cursorId === null ? [] : await selectRows(manager, 'SELECT i."position" FROM "items" i WHERE i."id" = ? AND i."taskId" = ?', [cursorId, taskId]);
      if (!cursor) throw rowNotInList();
      sql += ' AND (i."position" > ? OR (i."position" = ? AND i."id" > ?))';
      parameters.push(num(cursor[0]), num(cursor[0]), cursorId);
    }
    const [[total]] = await selectRows(manager, 'SELECT COUNT(*) FROM "items" i WHERE i."taskId" = ?', [taskId]);
    const rows = (await selectRows(manager, `${sql} ${IN_LIST_ORDER} LIMIT ?`, [...parameters, size + 1])).map((row) => itemOf(row));
    return pageFrom(rows, size, (row) => [String(row.id)], num(total));
  }

  /**
   * A task's history, oldest first (or newest first, DESC), keyset-paged by
   * event id, in one statement: each row carries the count of the whole
   * history. An empty first page is a history of none; a page past the end
   * counts on its own.
   */
  async history(taskId: number, first: number | null | undefined, after: string | null | undefined, direction: 'ASC' | 'DESC' = 'ASC'): Promise<Page<TaskEventEntity>> {
    const size = pageSize(first);
    const key = decodeCursor(after, ROW_CURSOR);
    const manager = this.reader();
    const bound = key ? ` AND e."id" ${direction === 'ASC' ? '>' : '<'} ?` : '';
    const sql = `SELECT ${taskEventColumns('e')}, (SELECT COUNT(*) FROM "task_events" t WHERE t."taskId" = e."taskId") FROM "task_events" e ` +
      `WHERE e."taskId" = ?${bound} ORDER BY e."id" ${direction} LIMIT ?`;
    const found = await selectRows(manager, sql, key ? [taskId, Number(key[0]), size + 1] : [taskId, size + 1]);
    let total = found.length ? num(found[0]![TASK_EVENT_WIDTH]) : 0;
    if (!found.length && key) total = num((await selectRows(manager, 'SELECT COUNT(*) FROM "task_events" e WHERE e."taskId" = ?', [taskId]))[0]![0]);
    return pageFrom(found.map((row) => taskEventOf(row)), size, (row) => [row.id], total);
  }
}
