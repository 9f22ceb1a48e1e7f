import { In, type EntityManager } from 'typeorm';
import { ROW_CURSOR, decodeCursor, pageFrom, pageSize, type Page } from '../../domain/paging.js';
import { TaskNoteEntity, TaskNoteItemEntity } from '../../db/entities/index.js';
import { keysetPage, keysetPagesByOwner } from '../kernel/keyset-page.js';

const NOTES_BY_TASK = { entity: TaskNoteEntity, table: 'task_notes', owner: 'taskId', ownerOf: (row: TaskNoteEntity) => row.taskId } as const;

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
    const query = this.reader().createQueryBuilder(TaskNoteEntity, 'n').where('n."taskId" = :taskId', { taskId });
    if (itemId !== null) {
      query.andWhere('EXISTS (SELECT 1 FROM "task_note_items" ni WHERE ni."noteId" = n."id" AND ni."itemId" = :itemId)', { itemId });
    }
    return keysetPage(query, 'n."id"', 'ASC', first, after);
  }

  /** For each note, the ids of the items it briefs. */
  async itemsOfNotes(noteIds: readonly number[]): Promise<number[][]> {
    const rows = noteIds.length ? await this.reader().find(TaskNoteItemEntity, { where: { noteId: In([...noteIds]) }, order: { itemId: 'ASC' } }) : [];
    return noteIds.map((noteId) => rows.filter((row) => row.noteId === noteId).map((row) => row.itemId));
  }

  /** One page of task notes for each task (Task.notes without item), in two statements. */
  notePagesOfTasks(taskIds: readonly number[], first?: number | null, after?: string | null): Promise<Page<TaskNoteEntity>[]> {
    return keysetPagesByOwner(this.reader(), NOTES_BY_TASK, taskIds, null, first, after);
  }

  /**
   * One page of briefs for each item, all with the same first/after, in at
   * most three statements whatever the number of items: the counts, the
   * (item, note) pairs of each page (ranked within each item), and the notes.
   */
  async notePagesOfItems(itemIds: readonly number[], first?: number | null, after?: string | null): Promise<Page<TaskNoteEntity>[]> {
    const size = pageSize(first);
    const key = decodeCursor(after, ROW_CURSOR);
    if (itemIds.length === 0) return [];
    const ids = [...new Set(itemIds)];
    const counts: { itemId: number; total: number | string }[] = await this.reader()
      .createQueryBuilder(TaskNoteItemEntity, 'ni')
      .select('ni."itemId"', 'itemId')
      .addSelect('COUNT(*)', 'total')
      .where('ni."itemId" IN (:...ids)', { ids })
      .groupBy('ni."itemId"')
      .getRawMany();
    const pairs: { itemId: number; noteId: number }[] = await this.reader()
      .createQueryBuilder()
      .select('ranked."itemId"', 'itemId')
      .addSelect('ranked."noteId"', 'noteId')
      .from(
        (sub) => sub
          .select('ni."itemId"', 'itemId')
          .addSelect('ni."noteId"', 'noteId')
          .addSelect('ROW_NUMBER() OVER (PARTITION BY ni."itemId" ORDER BY ni."noteId")', 'rn')
          .from(TaskNoteItemEntity, 'ni')
          .where('ni."itemId" IN (:...ids)', { ids })
          .andWhere('+ni."noteId" > :after', { after: key ? Number(key[0]) : 0 }),
        'ranked',
      )
      .where('ranked."rn" <= :limit', { limit: size + 1 })
      .getRawMany();
    const noteIds = [...new Set(pairs.map((pair) => Number(pair.noteId)))];
    const notes = noteIds.length ? await this.reader().findBy(TaskNoteEntity, { id: In(noteIds) }) : [];
    const byId = new Map(notes.map((note) => [note.id, note]));
    const totals = new Map(counts.map((row) => [Number(row.itemId), Number(row.total)]));
    return itemIds.map((itemId) => {
      const mine = pairs
        .filter((pair) => Number(pair.itemId) === itemId)
        .map((pair) => byId.get(Number(pair.noteId)))
        .filter((note): note is TaskNoteEntity => note !== undefined)
        .sort((a, b) => a.id - b.id);
      return pageFrom(mine, size, (row) => [row.id], totals.get(itemId) ?? 0);
    });
  }

  /** For each item, the briefs on it (for dependsOn). */
  async briefsOfItems(itemIds: readonly number[]): Promise<TaskNoteEntity[][]> {
    if (itemIds.length === 0) return [];
    const links = await this.reader().find(TaskNoteItemEntity, { where: { itemId: In([...itemIds]) } });
    const noteIds = [...new Set(links.map((link) => link.noteId))];
    const notes = noteIds.length ? await this.reader().find(TaskNoteEntity, { where: { id: In(noteIds) }, order: { id: 'ASC' } }) : [];
    return itemIds.map((itemId) => {
      const mine = new Set(links.filter((link) => link.itemId === itemId).map((link) => link.noteId));
      return notes.filter((note) => mine.has(note.id) && note.brief);
    });
  }
}
