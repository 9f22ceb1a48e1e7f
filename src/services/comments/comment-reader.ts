import type { EntityManager } from 'typeorm';
import type { Page } from '../../domain/paging.js';
import { CommentEntity } from '../../db/entities/index.js';
import { keysetPage, keysetPagesByOwner } from '../kernel/keyset-page.js';

const COMMENTS_BY_ITEM = { entity: CommentEntity, table: 'comments', owner: 'itemId', ownerOf: (row: CommentEntity) => row.itemId } as const;
const COMMENTS_BY_TASK = { entity: CommentEntity, table: 'comments', owner: 'taskId', ownerOf: (row: CommentEntity) => row.taskId } as const;

/**
 * Comments on tasks and items, oldest first, keyset-paged. The `...Of...`
 * methods answer many owners in two statements (the GraphQL layer batches
 * them through per-request DataLoaders).
 */
export class CommentReader {
  constructor(private readonly reader: () => EntityManager) {}

  /** Comments on one item; or on the task itself (and, with includeItems, on its items too). */
  async comments(args: { taskId: number | null; itemId: number | null; includeItems?: boolean; first?: number | null; after?: string | null }): Promise<Page<CommentEntity>> {
    const query = this.reader().createQueryBuilder(CommentEntity, 'c');
    if (args.itemId !== null) {
      query.where('c."itemId" = :itemId', { itemId: args.itemId });
      // Task.comments(item:) lists only this task's comments: an item of another task matches none.
      if (args.taskId !== null) query.andWhere('c."taskId" = :taskId', { taskId: args.taskId });
    } else {
      query.where('c."taskId" = :taskId', { taskId: args.taskId });
      if (!args.includeItems) query.andWhere('c."itemId" IS NULL');
    }
    return keysetPage(query, 'c."id"', 'ASC', args.first, args.after);
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
