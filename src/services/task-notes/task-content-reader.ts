import { In, type EntityManager } from 'typeorm';
import { decodeCursor, pageFrom, pageSize, type Page } from '../../domain/paging.js';
import { CommentEntity, ItemLinkEntity, MemoryEntity, TaskNoteEntity, TaskNoteItemEntity } from '../../db/entities/index.js';

const COMMENTS_BY_ITEM = { entity: CommentEntity, table: 'comments', owner: 'itemId', ownerOf: (row: CommentEntity) => row.itemId } as const;
const COMMENTS_BY_TASK = { entity: CommentEntity, table: 'comments', owner: 'taskId', ownerOf: (row: CommentEntity) => row.taskId } as const;
const NOTES_BY_TASK = { entity: TaskNoteEntity, table: 'task_notes', owner: 'taskId', ownerOf: (row: TaskNoteEntity) => row.taskId } as const;

/**
 * Reads of what belongs to a task besides its items: task notes, comments,
 * memories linked to items, and briefs behind Item.dependsOn. Keyset-paged;
 * the `...OfItems` methods answer many items in a fixed number of statements
 * (the GraphQL layer batches them through per-request DataLoaders).
 */
export class TaskContentReader {
  constructor(private readonly reader: () => EntityManager) {}

  /** A task's notes (all, or those on one item), oldest first. */
  async taskNotes(taskId: number, itemId: number | null, first?: number | null, after?: string | null): Promise<Page<TaskNoteEntity>> {
    const size = pageSize(first);
    const key = decodeCursor(after, 1, ['id']);
    const query = this.reader().createQueryBuilder(TaskNoteEntity, 'n').where('n."taskId" = :taskId', { taskId });
    if (itemId !== null) {
      query.andWhere('EXISTS (SELECT 1 FROM "task_note_items" ni WHERE ni."noteId" = n."id" AND ni."itemId" = :itemId)', { itemId });
    }
    const totalCount = await query.clone().getCount();
    if (key) query.andWhere('n."id" > :after', { after: Number(key[0]) });
    const rows = await query.orderBy('n."id"', 'ASC').limit(size + 1).getMany();
    return pageFrom(rows, size, (row) => [row.id], totalCount);
  }

  /** Comments, oldest first: on one item; or on the task itself (and, with includeItems, on its items too). */
  async comments(args: { taskId: number | null; itemId: number | null; includeItems?: boolean; first?: number | null; after?: string | null }): Promise<Page<CommentEntity>> {
    const size = pageSize(args.first);
    const key = decodeCursor(args.after, 1, ['id']);
    const query = this.reader().createQueryBuilder(CommentEntity, 'c');
    if (args.itemId !== null) {
      query.where('c."itemId" = :itemId', { itemId: args.itemId });
      // Task.comments(item:) lists only this task's comments: an item of another task matches none.
      if (args.taskId !== null) query.andWhere('c."taskId" = :taskId', { taskId: args.taskId });
    } else {
      query.where('c."taskId" = :taskId', { taskId: args.taskId });
      if (!args.includeItems) query.andWhere('c."itemId" IS NULL');
    }
    const totalCount = await query.clone().getCount();
    if (key) query.andWhere('c."id" > :after', { after: Number(key[0]) });
    const rows = await query.orderBy('c."id"', 'ASC').limit(size + 1).getMany();
    return pageFrom(rows, size, (row) => [row.id], totalCount);
  }

  /** For each note, the ids of the items it briefs. */
  async itemsOfNotes(noteIds: readonly number[]): Promise<number[][]> {
    const rows = noteIds.length ? await this.reader().find(TaskNoteItemEntity, { where: { noteId: In([...noteIds]) }, order: { itemId: 'ASC' } }) : [];
    return noteIds.map((noteId) => rows.filter((row) => row.noteId === noteId).map((row) => row.itemId));
  }

  /** For each item, the memories linked to it, oldest link first. */
  async relatedOfItems(itemIds: readonly number[]): Promise<MemoryEntity[][]> {
    if (itemIds.length === 0) return [];
    const links = await this.reader().find(ItemLinkEntity, { where: { itemId: In([...itemIds]) }, order: { createdAt: 'ASC', memoryId: 'ASC' } });
    const memoryIds = [...new Set(links.map((link) => link.memoryId))];
    const memories = memoryIds.length ? await this.reader().findBy(MemoryEntity, { id: In(memoryIds) }) : [];
    const byId = new Map(memories.map((memory) => [memory.id, memory]));
    return itemIds.map((itemId) => links.filter((link) => link.itemId === itemId && byId.has(link.memoryId)).map((link) => byId.get(link.memoryId)!));
  }

  /**
   * One page of rows for each owner (an item or a task), all with the same
   * first/after, in two statements whatever the number of owners: the counts
   * grouped by owner, and the rows ranked within each owner by a window
   * function so each gets its own first `size + 1`. `only` narrows the rows
   * (a SQL condition on alias r). The keyset bound is written `+r."id"` so no
   * planner reads it as a range of the whole table's ids (SQLite did, without
   * statistics: a scan of every comment to page one task's); the owner's
   * index answers instead.
   */
  private async pagesByOwner<T extends { id: number }>(
    rowsOf: { entity: new () => T; table: string; owner: 'itemId' | 'taskId'; ownerOf: (row: T) => number | null },
    ownerIds: readonly number[], only: string | null, first?: number | null, after?: string | null,
  ): Promise<Page<T>[]> {
    const { entity, table, owner, ownerOf } = rowsOf;
    const size = pageSize(first);
    const key = decodeCursor(after, 1, ['id']);
    if (ownerIds.length === 0) return [];
    const ids = [...new Set(ownerIds)];
    const narrow = only ? ` AND ${only}` : '';
    const countQuery = this.reader()
      .createQueryBuilder(entity, 'r')
      .select(`r."${owner}"`, 'owner')
      .addSelect('COUNT(*)', 'total')
      .where(`r."${owner}" IN (:...ids)`, { ids })
      .groupBy(`r."${owner}"`);
    if (only) countQuery.andWhere(only);
    const counts: { owner: number | string; total: number | string }[] = await countQuery.getRawMany();
    const rows = await this.reader()
      .createQueryBuilder(entity, 'c')
      .where(
        `c."id" IN (SELECT ranked."id" FROM (
          SELECT r."id", ROW_NUMBER() OVER (PARTITION BY r."${owner}" ORDER BY r."id") AS "rn"
          FROM "${table}" r WHERE r."${owner}" IN (:...ids) AND +r."id" > :after${narrow}) ranked
        WHERE ranked."rn" <= :limit)`,
        { ids, after: key ? Number(key[0]) : 0, limit: size + 1 },
      )
      .orderBy('c."id"', 'ASC')
      .getMany();
    const totals = new Map(counts.map((row) => [Number(row.owner), Number(row.total)]));
    return ownerIds.map((ownerId) =>
      pageFrom(rows.filter((row) => ownerOf(row) === ownerId), size, (row) => [row.id], totals.get(ownerId) ?? 0));
  }

  /** One page of comments for each item (Item.comments), in two statements. */
  commentPagesOfItems(itemIds: readonly number[], first?: number | null, after?: string | null): Promise<Page<CommentEntity>[]> {
    return this.pagesByOwner(COMMENTS_BY_ITEM, itemIds, null, first, after);
  }

  /** One page of comments for each task (Task.comments without item): its own, or with includeItems its items' too. */
  commentPagesOfTasks(taskIds: readonly number[], includeItems: boolean, first?: number | null, after?: string | null): Promise<Page<CommentEntity>[]> {
    return this.pagesByOwner(COMMENTS_BY_TASK, taskIds, includeItems ? null : 'r."itemId" IS NULL', first, after);
  }

  /** One page of task notes for each task (Task.notes without item), in two statements. */
  notePagesOfTasks(taskIds: readonly number[], first?: number | null, after?: string | null): Promise<Page<TaskNoteEntity>[]> {
    return this.pagesByOwner(NOTES_BY_TASK, taskIds, null, first, after);
  }

  /**
   * One page of briefs for each item, all with the same first/after, in at
   * most three statements whatever the number of items: the counts, the
   * (item, note) pairs of each page (ranked within each item), and the notes.
   */
  async notePagesOfItems(itemIds: readonly number[], first?: number | null, after?: string | null): Promise<Page<TaskNoteEntity>[]> {
    const size = pageSize(first);
    const key = decodeCursor(after, 1, ['id']);
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
