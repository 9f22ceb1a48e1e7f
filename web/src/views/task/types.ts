import type { Comment, Item } from '../../task-types';

/** A row of the checklist: the item, its comments, and the item it was made from (kept while unchanged, so the row is not re-rendered). */
export type ItemWithComments = Item & { comments: Comment[]; source: Item };
