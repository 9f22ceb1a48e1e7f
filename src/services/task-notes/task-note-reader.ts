import type { EntityManager } from 'typeorm';
import { ROW_CURSOR, decodeCursor, pageFrom, pageSize, type Page } from '../../domain/paging.js';
import type { TaskNoteEntity } from '../../db/entities/index.js';
import { appendTo } from '../kernel/grouping.js';
import { TASK_NOTE_WIDTH, taskNoteColumns, taskNoteOf } from '../kernel/entity-rows.js';
import { keysetPagesByOwner, keysetRows, type OwnedRows, type PageJoin } from '../kernel/keyset-page.js';
import { distinct, num, placeholders, selectRows } from '../kernel/statements.js';

const NOTES_BY_TASK: OwnedRows<TaskNoteEntity> = {
  table: 'task_notes', owner: 'taskId', ownerOf: (row) => row.taskId, columns: taskNoteColumns, width: TASK_NOTE_WIDTH, rowOf: taskNoteOf,
};

/** A note "c" briefs the item of the next placeholder. */
const ON_ITEM = 'EXISTS (SELECT 1 FROM "task_note_items" ni WHERE ni."noteId" = c."id" AND ni."itemId" = ?)';

const ITEMS_OF_NOTES = (count: number) => `SELECT l."noteId", l."itemId" FROM "task_note_items" l WHERE l."noteId" IN (${placeholders(count)}) ORDER BY l."itemId" ASC`;

/**
 * The first `?` briefs after a note id of each item, ranked per item in SQL,
 * each with its item and the item's total: the note's columns, then those two.
 * The keyset bound is written `+l."noteId"` so no planner reads it as a range
 * of every link's note ids; the item index answers instead.
 */
const NOTE_PAGES_OF_ITEMS = (count: number) => `SELECT ${taskNoteColumns('n')}, r."itemId", (SELECT COUNT(*) FROM "task_note_items" t WHERE t."itemId" = r."itemId")
  FROM (SELECT l."itemId", l."noteId", ROW_NUMBER() OVER (PARTITION BY l."itemId" ORDER BY l."noteId") AS "rn"
    FROM "task_note_items" l WHERE l."itemId" IN (${placeholders(count)}) AND +l."noteId" > ?) r
  INNER JOIN "task_notes" n ON n."id" = r."noteId"
  WHERE r."rn" <= ?
  ORDER BY r."itemId", r."rn"`;

const BRIEF_COUNTS = (count: number) => `SELECT l."itemId", COUNT(*) FROM "task_note_items" l WHERE l."itemId" IN (${placeholders(count)}) GROUP BY l."itemId"`;

/**
 * Task notes: notes on the whole task and briefs on items (and the briefs
 * behind Item.dependsOn), oldest first, keyset-paged. The `...Of...` methods
 * answer many tasks or items in a fixed number of statements (the GraphQL
 * layer batches them through per-request DataLoaders).
 */
export class TaskNoteReader {
  constructor(private readonly reader: () => EntityManager) {}

  /** A task's notes (all, or those on one item), oldest first. */
  async taskNotes(taskId: number, itemId: number | null, first?: number | null, after?: string | null): Promise<Page<TaskNoteEntity>> {
    return itemId === null
      ? keysetRows(this.reader(), NOTES_BY_TASK, 'c."taskId" = ?', [taskId], 'ASC', first, after)
      : keysetRows(this.reader(), NOTES_BY_TASK, `c."taskId" = ? AND ${ON_ITEM}`, [taskId, itemId], 'ASC', first, after);
  }

  /** For each note, the ids of the items it briefs, in id order. */
  async itemsOfNotes(noteIds: readonly number[]): Promise<number[][]> {
    if (noteIds.length === 0) return [];
    const ids = distinct(noteIds);
    const byNote = new Map<number, number[]>();
    for (const [noteId, itemId] of await selectRows(this.reader(), ITEMS_OF_NOTES(ids.length), ids)) appendTo(byNote, num(noteId), num(itemId));
    return noteIds.map((noteId) => byNote.get(noteId) ?? []);
  }

  /**
   * One page of each task's notes (Task.notes without item), oldest first,
   * with the items each note on the page briefs: one statement for any
   * number of tasks (the page ranked per task in SQL, keysetPagesByOwner),
   * reading the page's notes and their links, never the rest of the task's.
   */
  async notePagesOfTasks(taskIds: readonly number[], first?: number | null, after?: string | null): Promise<{ pages: Page<TaskNoteEntity>[]; itemsByNote: Map<number, number[]> }> {
    const itemsByNote = new Map<number, number[]>();
    const links: PageJoin = {
      join: 'LEFT JOIN "task_note_items" ni ON ni."noteId" = c."id"',
      select: 'ni."itemId"',
      orderBy: 'ni."itemId"',
      read: (rows) => {
        for (const { id, joined } of rows) {
          if (!itemsByNote.has(id)) itemsByNote.set(id, []);
          if (joined !== null) itemsByNote.get(id)!.push(num(joined));
        }
      },
    };
    const pages = await keysetPagesByOwner(this.reader(), NOTES_BY_TASK, taskIds, null, first, after, links);
    return { pages, itemsByNote };
  }

  /**
   * One page of the briefs on each item (Item.notes), oldest first: one
   * statement for any number of items, the links ranked per item in SQL, so
   * only the page's briefs are read; each row carries its item's total.
   */
  async notePagesOfItems(itemIds: readonly number[], first?: number | null, after?: string | null): Promise<Page<TaskNoteEntity>[]> {
    const size = pageSize(first);
    const key = decodeCursor(after, ROW_CURSOR);
    if (itemIds.length === 0) return [];
    const ids = distinct(itemIds);
    const rows = await selectRows(this.reader(), NOTE_PAGES_OF_ITEMS(ids.length), [...ids, key ? Number(key[0]) : 0, size + 1]);
    const byItem = new Map<number, TaskNoteEntity[]>();
    const totals = new Map<number, number>();
    for (const row of rows) {
      const itemId = num(row[TASK_NOTE_WIDTH]);
      totals.set(itemId, num(row[TASK_NOTE_WIDTH + 1]));
      appendTo(byItem, itemId, taskNoteOf(row, 0));
    }
    // A later page can be past an item's last brief: no row carries its total then, so those are counted on their own.
    const uncounted = itemIds.filter((itemId) => !totals.has(itemId));
    if (key && uncounted.length) for (const [itemId, total] of await this.briefCounts(uncounted)) totals.set(itemId, total);
    return itemIds.map((itemId) => pageFrom(byItem.get(itemId) ?? [], size, (row) => [row.id], totals.get(itemId) ?? 0));
  }

  /** How many briefs each item has (items without any left out). */
  private async briefCounts(itemIds: readonly number[]): Promise<Map<number, number>> {
    const ids = distinct(itemIds);
    const rows = await selectRows(this.reader(), BRIEF_COUNTS(ids.length), ids);
    return new Map(rows.map(([itemId, total]) => [num(itemId), num(total)]));
  }
}
