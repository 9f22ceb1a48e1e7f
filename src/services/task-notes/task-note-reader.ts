import type { EntityManager } from 'typeorm';
import { ROW_CURSOR, decodeCursor, pageFrom, pageSize, type Page } from '../../domain/paging.js';
import { TaskNoteEntity, TaskNoteItemEntity } from '../../db/entities/index.js';
import { appendTo } from '../kernel/grouping.js';
import { TASK_NOTE_WIDTH, taskNoteColumns, taskNoteOf } from '../kernel/entity-rows.js';
import { keysetPage, keysetPagesByOwner, type OwnedRows, type PageJoin } from '../kernel/keyset-page.js';
import { entityFromRow, plainRows } from '../kernel/plain-rows.js';
import { num } from '../kernel/statements.js';

const NOTES_BY_TASK: OwnedRows<TaskNoteEntity> = {
  table: 'task_notes', owner: 'taskId', ownerOf: (row) => row.taskId, columns: taskNoteColumns, width: TASK_NOTE_WIDTH, rowOf: taskNoteOf,
};

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
    const manager = this.reader();
    const query = manager.createQueryBuilder(TaskNoteEntity, 'n').where('n."taskId" = :taskId', { taskId });
    if (itemId !== null) {
      query.andWhere('EXISTS (SELECT 1 FROM "task_note_items" ni WHERE ni."noteId" = n."id" AND ni."itemId" = :itemId)', { itemId });
    }
    return keysetPage(query, 'n."id"', 'ASC', first, after, (page) => plainRows(manager, page));
  }

  /** For each note, the ids of the items it briefs. */
  async itemsOfNotes(noteIds: readonly number[]): Promise<number[][]> {
    const manager = this.reader();
    const rows = noteIds.length
      ? await plainRows(manager, manager.createQueryBuilder(TaskNoteItemEntity, 'l').where('l."noteId" IN (:...noteIds)', { noteIds: [...new Set(noteIds)] }).orderBy('l."itemId"', 'ASC'))
      : [];
    return noteIds.map((noteId) => rows.filter((row) => row.noteId === noteId).map((row) => row.itemId));
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
    const manager = this.reader();
    const query = manager.createQueryBuilder()
      .select('r."itemId"', 'pageItem')
      .addSelect('(SELECT COUNT(*) FROM "task_note_items" t WHERE t."itemId" = r."itemId")', 'itemTotal');
    for (const column of manager.connection.getMetadata(TaskNoteEntity).columns) query.addSelect(`n."${column.databaseName}"`, `n_${column.databaseName}`);
    const rows: Record<string, unknown>[] = await query
      .from((ranks) => ranks
        .select('l."itemId"', 'itemId')
        .addSelect('l."noteId"', 'noteId')
        .addSelect('ROW_NUMBER() OVER (PARTITION BY l."itemId" ORDER BY l."noteId")', 'rn')
        .from(TaskNoteItemEntity, 'l')
        .where('l."itemId" IN (:...itemIds) AND +l."noteId" > :after', { itemIds: [...new Set(itemIds)], after: key ? Number(key[0]) : 0 }), 'r')
      .innerJoin(TaskNoteEntity, 'n', 'n."id" = r."noteId"')
      .where('r."rn" <= :limit', { limit: size + 1 })
      .orderBy('r."itemId"')
      .addOrderBy('r."rn"')
      .getRawMany();
    const byItem = new Map<number, TaskNoteEntity[]>();
    const totals = new Map<number, number>();
    for (const row of rows) {
      const itemId = Number(row.pageItem);
      totals.set(itemId, Number(row.itemTotal));
      appendTo(byItem, itemId, entityFromRow(manager, TaskNoteEntity, row, 'n_'));
    }
    // A later page can be past an item's last brief: no row carries its total then, so those are counted on their own.
    const uncounted = itemIds.filter((itemId) => !totals.has(itemId));
    if (key && uncounted.length) for (const [itemId, total] of await this.briefCounts(uncounted)) totals.set(itemId, total);
    return itemIds.map((itemId) => pageFrom(byItem.get(itemId) ?? [], size, (row) => [row.id], totals.get(itemId) ?? 0));
  }

  /** How many briefs each item has (items without any left out). */
  private async briefCounts(itemIds: readonly number[]): Promise<Map<number, number>> {
    const rows: { itemId: number | string; total: number | string }[] = await this.reader()
      .createQueryBuilder(TaskNoteItemEntity, 'l')
      .select('l."itemId"', 'itemId')
      .addSelect('COUNT(*)', 'total')
      .where('l."itemId" IN (:...itemIds)', { itemIds: [...new Set(itemIds)] })
      .groupBy('l."itemId"')
      .getRawMany();
    return new Map(rows.map((row) => [Number(row.itemId), Number(row.total)]));
  }
}
