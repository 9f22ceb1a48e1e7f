import DataLoader from 'dataloader';
import type { Page } from '../domain/paging.js';
import { appendTo } from '../services/kernel/grouping.js';
import type { Services } from '../services/index.js';
import type { MemoryEntity } from '../db/entities/index.js';
import { RESPONSE_BUDGET_CHARS, refuseUnlessItFits, type ExecutionBudget } from './execution-budget.js';
import { createSessionLoaders } from './session-loaders.js';

/** One page of a list per owner (an item or a task): the owner and the page arguments. */
export interface PageKey {
  ownerId: number;
  first?: number | null;
  after?: string | null;
  /** Task.comments only: the items' comments too. */
  includeItems?: boolean;
}

/**
 * Batches per-owner pages: keys asking for the same page (first/after) are
 * answered by one call of `load` for all their owners, so a list of items
 * (or tasks) each showing its comments costs the same statements for 20 as
 * for 200. A refused argument (first over 200, a foreign cursor) fails only
 * the keys that sent it.
 */
function pageLoader<T>(load: (ownerIds: number[], args: Omit<PageKey, 'ownerId'>) => Promise<Page<T>[]>) {
  const argsOf = (key: PageKey) => JSON.stringify([key.first ?? null, key.after ?? null, key.includeItems ?? false]);
  return new DataLoader<PageKey, Page<T>, string>(
    async (keys) => {
      const groups = new Map<string, PageKey[]>();
      for (const key of keys) appendTo(groups, argsOf(key), key);
      const answers = new Map<string, Page<T> | Error>();
      await Promise.all([...groups.values()].map(async (group) => {
        const [{ first, after, includeItems }] = group;
        try {
          const pages = await load(group.map((key) => key.ownerId), { first, after, includeItems });
          group.forEach((key, index) => answers.set(`${key.ownerId}:${argsOf(key)}`, pages[index]));
        } catch (error) {
          for (const key of group) answers.set(`${key.ownerId}:${argsOf(key)}`, error as Error);
        }
      }));
      return keys.map((key) => answers.get(`${key.ownerId}:${argsOf(key)}`)!);
    },
    // A task holds at most 500 items; the cap only keeps a huge multi-task query under the drivers' bound-parameter limits.
    { cacheKeyFn: (key) => `${key.ownerId}:${argsOf(key)}`, maxBatchSize: 10_000 },
  );
}

/**
 * Memories linked to each item, read only when their text fits in what is
 * left of the answer's budget: links to more text than an answer may carry
 * are refused (TOO_LARGE) with only their lengths read.
 */
async function relatedOfItems(services: Services, budget: ExecutionBudget, itemIds: readonly number[]): Promise<MemoryEntity[][]> {
  const linked = await services.linkedMemories.relatedOfItems(itemIds, RESPONSE_BUDGET_CHARS - budget.chars);
  refuseUnlessItFits(budget, linked.chars);
  return linked.memories;
}

/**
 * Per-request batching: one SQL statement per kind of row a query needs,
 * whatever the number of items, notes or comments. Built in the context
 * factory for each request (and for each event of a subscription), never
 * shared between requests; `budget` is that answer's, for the readers that
 * check it before they load.
 */
export function createLoaders(services: Services, budget: ExecutionBudget) {
  const reader = services.taskReader;
  return {
    memory: new DataLoader((ids: readonly string[]) => reader.memoriesByIds(ids)),
    item: new DataLoader((ids: readonly string[]) => reader.itemsByIds(ids)),
    /** Every item of a task, deleted ones included, in list order. */
    taskItems: new DataLoader((taskIds: readonly number[]) => reader.itemsOfTasks(taskIds)),
    /**
     * Each task's notes with the items each is on, read once: Task.notes,
     * Item.notes, Item.dependsOn and TaskNote.items all answer from it.
     */
    taskNotes: new DataLoader((taskIds: readonly number[]) => services.taskNoteReader.noteSetsOfTasks(taskIds)),
    /** Memories linked to each item. */
    related: new DataLoader((itemIds: readonly number[]) => relatedOfItems(services, budget, itemIds)),
    /** A page of comments on each item (Item.comments, when its nodes are asked for). */
    itemComments: pageLoader((itemIds, { first, after }) => services.commentReader.commentPagesOfItems(itemIds, first, after)),
    /** How many comments each item of a task has (Item.comments { totalCount } alone). */
    itemCommentCounts: new DataLoader((taskIds: readonly number[]) => services.commentReader.itemCommentCountsOfTasks(taskIds)),
    /** A page of each task's own comments, or with includeItems its items' too (Task.comments without item). */
    taskComments: pageLoader((taskIds, { first, after, includeItems }) => services.commentReader.commentPagesOfTasks(taskIds, includeItems ?? false, first, after)),
    /** The live claim on each item (Item.claim). */
    claim: new DataLoader((itemIds: readonly number[]) => services.claimReader.claimsOfItems(itemIds)),
    /** What each item waits for (Item.blockedBy, Item.ready). */
    blockers: new DataLoader((itemIds: readonly number[]) => services.claimReader.blockersOfItems(itemIds)),
    /** The items waiting for each item (Item.blocks). */
    waiters: new DataLoader((itemIds: readonly number[]) => services.claimReader.waitersOfItems(itemIds)),
    /** The items each session holds a live claim on (Session.claims). */
    sessionClaims: new DataLoader((sessionIds: readonly string[]) => services.claimReader.claimedItemsOfSessions(sessionIds)),
    ...createSessionLoaders(services),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/** Forgets every row a request's loaders hold: after a mutation, what was loaded before it may be stale. */
export function clearLoaders(loaders: Loaders): void {
  for (const loader of Object.values(loaders)) if (loader instanceof DataLoader) loader.clearAll();
}
