import type { ItemEntity } from '../db/entities/index.js';
import { LIST_CURSOR, decodeCursor, pageInMemory, pageSize, type Page } from '../domain/paging.js';
import type { Context } from './context.js';

/**
 * A page of a task's items (Task.items). Live ones are paged from the live
 * list the request already holds (at most 500). A cursor whose item has
 * since been deleted still marks its place: that one item is read by id and
 * set where it stood. With includeDeleted the page is read in SQL, so the
 * deleted items a task keeps are read a page at a time.
 */
export async function itemPage(ctx: Context, taskId: number, first: number | null | undefined, after: string | null | undefined, includeDeleted: boolean): Promise<Page<ItemEntity>> {
  if (includeDeleted) return ctx.services.taskReader.itemPage(taskId, first, after);
  pageSize(first);
  const key = decodeCursor(after, LIST_CURSOR);
  let all = await ctx.loaders.taskItems.load(taskId);
  if (key && !all.some((item) => String(item.id) === key[0])) {
    const cursor = await ctx.loaders.citedItems.load(String(key[0]));
    if (cursor && cursor.taskId === taskId) {
      const place = all.findIndex((item) => item.position > cursor.position || (item.position === cursor.position && item.id > cursor.id));
      all = place < 0 ? [...all, cursor] : [...all.slice(0, place), cursor, ...all.slice(place)];
    }
  }
  return pageInMemory(all, first, after, (item) => String(item.id), (item) => !item.deleted);
}
