import DataLoader from 'dataloader';
import type { Page } from '../domain/paging.js';
import type { Services } from '../services/index.js';
import { createSessionLoaders } from './session-loaders.js';

/** One page of a list per item: the item and the page arguments. */
export interface ItemPageKey {
  itemId: number;
  first?: number | null;
  after?: string | null;
}

/**
 * Batches per-item pages: keys asking for the same page (first/after) are
 * answered by one call of `load` for all their items, so a list of items
 * each showing its comments costs the same statements for 20 items as for
 * 200. A refused argument (first over 200, a foreign cursor) fails only the
 * keys that sent it.
 */
function itemPageLoader<T>(load: (itemIds: number[], first?: number | null, after?: string | null) => Promise<Page<T>[]>) {
  const argsOf = (key: ItemPageKey) => JSON.stringify([key.first ?? null, key.after ?? null]);
  return new DataLoader<ItemPageKey, Page<T>, string>(
    async (keys) => {
      const groups = new Map<string, ItemPageKey[]>();
      for (const key of keys) groups.set(argsOf(key), [...(groups.get(argsOf(key)) ?? []), key]);
      const answers = new Map<string, Page<T> | Error>();
      await Promise.all([...groups.values()].map(async (group) => {
        const [{ first, after }] = group;
        try {
          const pages = await load(group.map((key) => key.itemId), first, after);
          group.forEach((key, index) => answers.set(`${key.itemId}:${argsOf(key)}`, pages[index]));
        } catch (error) {
          for (const key of group) answers.set(`${key.itemId}:${argsOf(key)}`, error as Error);
        }
      }));
      return keys.map((key) => answers.get(`${key.itemId}:${argsOf(key)}`)!);
    },
    // A task holds at most 500 items; the cap only keeps a huge multi-task query under the drivers' bound-parameter limits.
    { cacheKeyFn: (key) => `${key.itemId}:${argsOf(key)}`, maxBatchSize: 10_000 },
  );
}

/**
 * Per-request batching: one SQL statement per kind of row a query needs,
 * whatever the number of items, notes or comments. Built in the context
 * factory for each request, never shared between requests.
 */
export function createLoaders(services: Services) {
  const reader = services.taskReader;
  return {
    memory: new DataLoader((ids: readonly string[]) => reader.memoriesByIds(ids)),
    item: new DataLoader((ids: readonly string[]) => reader.itemsByIds(ids)),
    /** Every item of a task, deleted ones included, in list order. */
    taskItems: new DataLoader((taskIds: readonly number[]) => reader.itemsOfTasks(taskIds)),
    /** Ids of the items each task note briefs. */
    noteItems: new DataLoader((noteIds: readonly number[]) => services.taskContent.itemsOfNotes(noteIds)),
    /** Memories linked to each item. */
    related: new DataLoader((itemIds: readonly number[]) => services.taskContent.relatedOfItems(itemIds)),
    /** Briefs on each item. */
    itemBriefs: new DataLoader((itemIds: readonly number[]) => services.taskContent.briefsOfItems(itemIds)),
    /** A page of comments on each item (Item.comments). */
    itemComments: itemPageLoader((itemIds, first, after) => services.taskContent.commentPagesOfItems(itemIds, first, after)),
    /** A page of briefs on each item (Item.notes). */
    itemNotes: itemPageLoader((itemIds, first, after) => services.taskContent.notePagesOfItems(itemIds, first, after)),
    ...createSessionLoaders(services),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/** Forgets every row a request's loaders hold: after a mutation, what was loaded before it may be stale. */
export function clearLoaders(loaders: Loaders): void {
  for (const loader of Object.values(loaders)) if (loader instanceof DataLoader) loader.clearAll();
}
