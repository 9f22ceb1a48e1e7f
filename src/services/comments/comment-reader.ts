import type { EntityManager } from 'typeorm';
import type { Page } from '../../domain/paging.js';
import { CommentEntity } from '../../db/entities/index.js';
import { COMMENT_WIDTH, commentColumns, commentOf } from '../kernel/entity-rows.js';
import { keysetPage, keysetPagesByOwner, type OwnedRows } from '../kernel/keyset-page.js';
import { plainRows } from '../kernel/plain-rows.js';

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
    const manager = this.reader();
    const query = manager.createQueryBuilder(CommentEntity, 'c');
    if (args.itemId !== null) {
      query.where('c."itemId" = :itemId', { itemId: args.itemId });
      // Task.comments(item:) lists only this task's comments: an item of another task matches none.
      if (args.taskId !== null) query.andWhere('c."taskId" = :taskId', { taskId: args.taskId });
    } else {
      query.where('c."taskId" = :taskId', { taskId: args.taskId });
      if (!args.includeItems) query.andWhere('c."itemId" IS NULL');
    }
    return keysetPage(query, 'c."id"', 'ASC', args.first, args.after, (page) => plainRows(manager, page));
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
