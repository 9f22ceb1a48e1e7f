import type { GraphQLResolveInfo } from 'graphql';
import type { ItemEntity } from '../db/entities/index.js';
import { mayBeReady } from '../domain/claims.js';
import { LIST_CURSOR, decodeCursor, pageInMemory, pageSize, type Page } from '../domain/paging.js';
import type { Context } from './context.js';
import { nodeFieldsOf } from './execution/selection.js';

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
  if (fields.has('related')) reads.push(ctx.loaders.related.loadMany(ids));
  const claims = fields.has('claim');
  const waiters = fields.has('blocks');
  const waiting = fields.has('blockedBy') ? ids : fields.has('ready') ? items.filter(mayBeReady).map((item) => item.id) : [];
  if (Number(claims) + Number(waiters) + Number(waiting.length > 0) >= 2) {
    // Should the one read fail, the loaders hold nothing and each field reads (and reports) on its own.
    reads.push(readCoordination(ctx, ids, claims).catch(() => undefined));
  } else {
    if (claims) reads.push(ctx.loaders.claim.loadMany(ids));
    if (waiters) reads.push(ctx.loaders.waiters.loadMany(ids));
    if (waiting.length) reads.push(ctx.loaders.blockers.loadMany(waiting));
  }
  // loadMany answers a failed key as an Error in its place: the field that asks for it fails as it would have.
  await Promise.all(reads);
}

/**
 * What the items wait for, what waits for them and (with `claims`) their
 * claims, in one statement, kept in the loaders as their own reads would
 * have left them (a key a loader already holds keeps what it read first).
 */
async function readCoordination(ctx: Context, ids: readonly number[], claims: boolean): Promise<void> {
  const read = await ctx.services.claimReader.coordinationOfItems(ids, { claims });
  ids.forEach((id, index) => {
    if (claims) ctx.loaders.claim.prime(id, read.claims[index]!);
    ctx.loaders.blockers.prime(id, read.blockers[index]!);
    ctx.loaders.waiters.prime(id, read.waiters[index]!);
  });
}
