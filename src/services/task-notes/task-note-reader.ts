import { In, type EntityManager } from 'typeorm';
import { ROW_CURSOR, decodeCursor, pageFrom, pageSize, type Page } from '../../domain/paging.js';
import { TaskNoteEntity, TaskNoteItemEntity } from '../../db/entities/index.js';
import { appendTo } from '../kernel/grouping.js';
import { keysetPage } from '../kernel/keyset-page.js';

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

  /**
   * Every note of each task, oldest first, with the items each is on: one
   * statement for any number of tasks, notes and items (the notes joined
   * with their item links). What a task's notes page, an item's briefs and
   * dependencies, and a note's items all read.
   */
  async noteSetsOfTasks(taskIds: readonly number[]): Promise<TaskNoteSet[]> {
    if (taskIds.length === 0) return [];
    const { entities, raw } = await this.reader()
      .createQueryBuilder(TaskNoteEntity, 'n')
      .leftJoin(TaskNoteItemEntity, 'ni', 'ni."noteId" = n."id"')
      .addSelect('ni."itemId"', 'linkedItem')
      .where('n."taskId" IN (:...taskIds)', { taskIds: [...new Set(taskIds)] })
      .orderBy('n."id"', 'ASC')
      .addOrderBy('ni."itemId"', 'ASC')
      .getRawAndEntities();
    const sets = new Map(taskIds.map((taskId) => [taskId, new TaskNoteSet()]));
    for (const note of entities) sets.get(note.taskId)?.notes.push(note);
    const byId = new Map(entities.map((note) => [note.id, note]));
    for (const row of raw as { n_id: number | string; linkedItem: number | string | null }[]) {
      const note = byId.get(Number(row.n_id));
      if (note && row.linkedItem !== null) sets.get(note.taskId)?.link(note, Number(row.linkedItem));
    }
    return taskIds.map((taskId) => sets.get(taskId)!);
  }
}

/** A task's notes (oldest first) and which items each is on, read once and answered from memory. */
export class TaskNoteSet {
  readonly notes: TaskNoteEntity[] = [];
  private readonly itemsByNote = new Map<number, number[]>();
  private readonly notesByItem = new Map<number, TaskNoteEntity[]>();

  link(note: TaskNoteEntity, itemId: number): void {
    appendTo(this.itemsByNote, note.id, itemId);
    appendTo(this.notesByItem, itemId, note);
  }

  /** Ids of the items a note briefs, ascending; none for a note on the whole task. */
  itemsOf(noteId: number): number[] {
    return this.itemsByNote.get(noteId) ?? [];
  }

  /** The briefs on an item, oldest first. */
  notesOn(itemId: number): TaskNoteEntity[] {
    return this.notesByItem.get(itemId) ?? [];
  }

  /** A keyset page (by note id) of the task's notes, or of the briefs on one item. */
  page(first: number | null | undefined, after: string | null | undefined, itemId?: number): Page<TaskNoteEntity> {
    const size = pageSize(first);
    const key = decodeCursor(after, ROW_CURSOR);
    const all = itemId === undefined ? this.notes : this.notesOn(itemId);
    const rest = key ? all.filter((note) => note.id > Number(key[0])) : all;
    return pageFrom(rest.slice(0, size + 1), size, (row) => [row.id], all.length);
  }
}
