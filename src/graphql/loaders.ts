import DataLoader from 'dataloader';
import type { Services } from '../services/index.js';

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
    noteItems: new DataLoader((noteIds: readonly number[]) => services.memoryReader.itemsOfNotes(noteIds)),
    /** Memories linked to each item. */
    related: new DataLoader((itemIds: readonly number[]) => services.memoryReader.relatedOfItems(itemIds)),
    /** Briefs on each item. */
    itemBriefs: new DataLoader((itemIds: readonly number[]) => services.memoryReader.briefsOfItems(itemIds)),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
