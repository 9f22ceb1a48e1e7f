import type { GraphQLResolveInfo } from 'graphql';
import type { ItemEntity } from '../db/entities/index.js';
import { isOpenWork } from '../domain/claims.js';
import { LIST_CURSOR, decodeCursor, pageInMemory, pageSize, type Page } from '../domain/paging.js';
import type { Context } from './context.js';
import { nodeFieldsOf } from './selection.js';

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

/**
 * Reads what the asked-for fields of a page's items need (their claims,
 * what they wait for and block, their linked memories), one batch each, the
 * batches the fields would have sent, before the page answers: each field
 * of each row then answers from its loader at once, not with a promise of
 * its own. A dashboard page of 30 items asks four such fields per row, and
 * those 120 promises (each one more for the answer budget) were work that
 * did nothing. `ready` reads only what open items wait for, as it does.
 */
export async function readForItemFields(ctx: Context, info: GraphQLResolveInfo, items: readonly ItemEntity[]): Promise<void> {
  if (!items.length) return;
  const fields = nodeFieldsOf(info);
  const ids = items.map((item) => item.id);
  const reads: Promise<unknown>[] = [];
  if (fields.has('claim')) reads.push(ctx.loaders.claim.loadMany(ids));
  if (fields.has('related')) reads.push(ctx.loaders.related.loadMany(ids));
  const waiting = fields.has('blockedBy') ? ids : fields.has('ready') ? items.filter((item) => !item.deleted && isOpenWork(item.state)).map((item) => item.id) : [];
  // Should the one read fail, the loaders hold nothing and each field reads (and reports) on its own, as before.
  if (fields.has('blocks') && waiting.length) reads.push(readBothWays(ctx, ids).catch(() => undefined));
  else if (fields.has('blocks')) reads.push(ctx.loaders.waiters.loadMany(ids));
  else if (waiting.length) reads.push(ctx.loaders.blockers.loadMany(waiting));
  // loadMany answers a failed key as an Error in its place: the field that asks for it fails as it would have.
  await Promise.all(reads);
}

/**
 * What the items wait for and what waits for them, in one statement, kept in
 * both loaders as their own reads would have left them (the items a loader
 * already holds keep what it read first).
 */
async function readBothWays(ctx: Context, ids: readonly number[]): Promise<void> {
  const { blockers, waiters } = await ctx.services.claimReader.dependenciesOfItems(ids);
  ids.forEach((id, index) => {
    ctx.loaders.blockers.prime(id, blockers[index]!);
    ctx.loaders.waiters.prime(id, waiters[index]!);
  });
}
