import type { EntityManager } from 'typeorm';
import { LIST_CURSOR, ROW_CURSOR, decodeCursor, pageFrom, pageSize, rowNotInList, type Page } from '../../domain/paging.js';
import { TASK_EVENT_WIDTH, itemColumns, itemOf, taskEventColumns, taskEventOf, type RecordedTaskEvent } from '../kernel/entity-rows.js';
import { memoriesWithIds } from '../memories/memory-reader.js';
import { distinct, num, placeholders, selectRows } from '../kernel/statements.js';
import { itemsOfTaskIds, itemsWithIds } from '../task-aggregate/item-rows.js';
import { parseId } from '../../domain/task-rules.js';
import { historyActionsOf } from '../../domain/history.js';
import type { ItemEntity, MemoryEntity } from '../../db/entities/index.js';

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
   * event id, in one statement: each page row carries the count of the whole
   * history. An empty first page is a history of none; a page past the end
   * counts on its own. A row may hold its list as a delta from the row
   * before (domain/list-delta.ts), so the same statement also reads the rows
   * from the nearest checkpoint up to the page's oldest row: at most
   * CHAIN_LENGTH_MAX of them, however deep the page, so page 1,000 costs
   * what page 1 does.
   */
  async history(taskId: number, first: number | null | undefined, after: string | null | undefined, direction: 'ASC' | 'DESC' = 'ASC', only: HistoryFilter = {}): Promise<Page<RecordedTaskEvent>> {
    const size = pageSize(first);
    const key = decodeCursor(after, ROW_CURSOR);
    const manager = this.reader();
    if (isFiltered(only)) return this.filteredHistory(manager, taskId, size, key === null ? null : Number(key[0]), direction, only);
    const found = await selectRows(manager, historySql(direction, key !== null), key ? [taskId, Number(key[0]), size + 1, taskId, taskId] : [taskId, size + 1, taskId, taskId]);
    const page = pageEvents(found);
    if (direction === 'DESC') page.reverse();
    const counted = found.find((row) => row[TASK_EVENT_WIDTH] !== null);
    let total = counted ? num(counted[TASK_EVENT_WIDTH]) : 0;
    if (!counted && key) total = num((await selectRows(manager, 'SELECT COUNT(*) FROM "task_events" e WHERE e."taskId" = ?', [taskId]))[0]![0]);
    return pageFrom(page, size, (row) => [row.id], total);
  }

  /** history() with a filter: the same keyset paging over the matching rows, counted as filtered. */
  private async filteredHistory(manager: EntityManager, taskId: number, size: number, from: number | null, direction: 'ASC' | 'DESC', only: HistoryFilter): Promise<Page<RecordedTaskEvent>> {
    const countValues: unknown[] = [taskId];
    const countFilter = filterSql(only, countValues);
    const pageValues: unknown[] = [taskId];
    const filter = filterSql(only, pageValues);
    const values = [...countValues, ...pageValues, ...(from === null ? [] : [from]), size + 1];
    const found = await selectRows(manager, filteredHistorySql(direction, from !== null, filter), values);
    const page = pageEvents(found);
    if (direction === 'DESC') page.reverse();
    const counted = found.find((row) => row[TASK_EVENT_WIDTH] !== null);
    let total = counted ? num(counted[TASK_EVENT_WIDTH]) : 0;
    if (!counted && from !== null) total = num((await selectRows(manager, `SELECT COUNT(*) FROM "task_events" e WHERE e."taskId" = ?${countFilter}`, countValues))[0]![0]);
    return pageFrom(page, size, (row) => [row.id], total);
  }
}

/**
 * Which of a task's events a reader asks for: some actions, one session's,
 * or only those made without a session (people on the dashboard).
 */
export interface HistoryFilter {
  actions?: readonly string[] | null;
  sessionId?: string | null;
  byPerson?: boolean | null;
}

function isFiltered(only: HistoryFilter): boolean {
  return Boolean(only.actions?.length || only.sessionId || only.byPerson);
}

/** The filter as SQL over task_events e, its values appended to `values`. */
function filterSql(only: HistoryFilter, values: unknown[]): string {
  let sql = '';
  if (only.actions?.length) {
    const actions = historyActionsOf(only.actions);
    sql += ` AND e."action" IN (${placeholders(actions.length)})`;
    values.push(...actions);
  }
  if (only.sessionId) {
    sql += ' AND e."sessionId" = ?';
    values.push(only.sessionId);
  }
  if (only.byPerson) sql += ' AND e."sessionId" IS NULL';
  return sql;
}

/**
 * filteredHistorySql's text: the page of matching rows (with their count),
 * then, for each page row, the rows from its nearest checkpoint up to it that
 * the filter left out: a delta row rebuilds its list from the row right before
 * it, which a filter may have skipped. Each chain is at most CHAIN_LENGTH_MAX
 * rows, so a filtered page costs what an unfiltered one does, however deep.
 */
function filteredHistorySql(direction: 'ASC' | 'DESC', withCursor: boolean, filter: string): string {
  const bound = withCursor ? ` AND e."id" ${direction === 'ASC' ? '>' : '<'} ?` : '';
  return `WITH "page" AS (SELECT ${taskEventColumns('e')}, (SELECT COUNT(*) FROM "task_events" e WHERE e."taskId" = ?${filter}) AS "total" ` +
    `FROM "task_events" e WHERE e."taskId" = ?${filter}${bound} ORDER BY e."id" ${direction} LIMIT ?) ` +
    'SELECT p.*, 0 FROM "page" p UNION ALL ' +
    `SELECT ${taskEventColumns('e')}, NULL, 1 FROM "task_events" e WHERE e."id" IN (SELECT l."id" FROM "page" q JOIN "task_events" l ON l."taskId" = q."taskId" AND l."id" < q."id" ` +
    'AND l."id" >= (SELECT MAX(k."id") FROM "task_events" k WHERE k."taskId" = q."taskId" AND k."chainLength" = 0 AND k."id" <= q."id") ' +
    'WHERE l."id" NOT IN (SELECT r."id" FROM "page" r))';
}

/**
 * historySql's text: the page (its rows in order, with the history's count)
 * as a common table expression, then the lead rows: those from the nearest
 * checkpoint at or before the page's oldest row up to it. A row's last
 * column says which it is (0: page, 1: lead).
 */
function historySql(direction: 'ASC' | 'DESC', withCursor: boolean): string {
  const bound = withCursor ? ` AND e."id" ${direction === 'ASC' ? '>' : '<'} ?` : '';
  return `WITH "page" AS (SELECT ${taskEventColumns('e')}, (SELECT COUNT(*) FROM "task_events" t WHERE t."taskId" = e."taskId") AS "total" ` +
    `FROM "task_events" e WHERE e."taskId" = ?${bound} ORDER BY e."id" ${direction} LIMIT ?) ` +
    'SELECT p.*, 0 FROM "page" p UNION ALL ' +
    `SELECT ${taskEventColumns('e')}, NULL, 1 FROM "task_events" e WHERE e."taskId" = ? AND e."id" < (SELECT MIN(q."id") FROM "page" q) ` +
    'AND e."id" >= (SELECT MAX(k."id") FROM "task_events" k WHERE k."taskId" = ? AND k."chainLength" = 0 AND k."id" <= (SELECT MIN(q."id") FROM "page" q))';
}

/** historySql's rows as events, oldest first, each linked to the one before it; the lead rows, read only for that, left out. */
function pageEvents(rows: readonly unknown[][]): RecordedTaskEvent[] {
  const page: RecordedTaskEvent[] = [];
  let previous: RecordedTaskEvent | null = null;
  for (const row of [...rows].sort((a, b) => num(a[0]) - num(b[0]))) {
    previous = taskEventOf(row, 0, previous);
    if (num(row[TASK_EVENT_WIDTH + 1]) === 0) page.push(previous);
  }
  return page;
}
