import type { EntityManager } from 'typeorm';
import type { Page } from '../../domain/paging.js';
import { CommentEntity } from '../../db/entities/index.js';
import { COMMENT_WIDTH, commentColumns, commentOf } from '../kernel/entity-rows.js';
import { keysetPagesByOwner, keysetRows, type OwnedRows } from '../kernel/keyset-page.js';

const COMMENT_ROWS = { table: 'comments', columns: commentColumns, width: COMMENT_WIDTH, rowOf: commentOf } as const;
const COMMENTS_BY_ITEM: OwnedRows<CommentEntity> = { ...COMMENT_ROWS, owner: 'itemId', ownerOf: (row) => row.itemId };
const COMMENTS_BY_TASK: OwnedRows<CommentEntity> = { ...COMMENT_ROWS, owner: 'taskId', ownerOf: (row) => row.taskId };

/**
 * Comments on tasks and items, oldest first, keyset-paged. The `...Of...`
 * methods answer many owners in two statements (the GraphQL layer batches
 * them through per-request DataLoaders).
 */
export class CommentReader {
  constructor(private readonly reader: () => EntityManager) {}

  /** Comments on one item; or on the task itself (and, with includeItems, on its items too). */
  async comments(args: { taskId: number | null; itemId: number | null; includeItems?: boolean; first?: number | null; after?: string | null }): Promise<Page<CommentEntity>> {
    const [where, values] = args.itemId !== null
      // Task.comments(item:) lists only this task's comments: an item of another task matches none.
      ? args.taskId !== null ? ['c."itemId" = ? AND c."taskId" = ?', [args.itemId, args.taskId]] : ['c."itemId" = ?', [args.itemId]]
      : [`c."taskId" = ?${args.includeItems ? '' : ' AND c."itemId" IS NULL'}`, [args.taskId]];
    return keysetRows(this.reader(), COMMENT_ROWS, where, values, 'ASC', args.first, args.after);
  }

  /** One page of comments for each item (Item.comments). */
  commentPagesOfItems(itemIds: readonly number[], first?: number | null, after?: string | null): Promise<Page<CommentEntity>[]> {
    return keysetPagesByOwner(this.reader(), COMMENTS_BY_ITEM, itemIds, null, first, after);
  }

  /** One page of comments for each task (Task.comments without item): its own, or with includeItems its items' too. */
  commentPagesOfTasks(taskIds: readonly number[], includeItems: boolean, first?: number | null, after?: string | null): Promise<Page<CommentEntity>[]> {
    return keysetPagesByOwner(this.reader(), COMMENTS_BY_TASK, taskIds, includeItems ? null : (alias) => `${alias}."itemId" IS NULL`, first, after);
  }
}
