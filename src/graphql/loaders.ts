import DataLoader from 'dataloader';
import type { Page } from '../domain/paging.js';
import { appendTo } from '../services/kernel/grouping.js';
import type { Services } from '../services/index.js';
import type { MemoryEntity, WebhookDeliveryEntity } from '../db/entities/index.js';
import { RESPONSE_BUDGET_CHARS, refuseUnlessItFits, type ExecutionBudget } from './execution/execution-budget.js';
import { SESSION_LOADERS } from './session-loaders.js';
import { SettledLoader } from './execution/settled-loader.js';

/** One page of a list per owner (an item or a task): the owner and the page arguments. */
interface PageKey {
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

/** Each note's briefed items, ascending: its own factory, since a page of Task.notes primes it. */
const noteItemsLoader = (services: Services) => new SettledLoader((noteIds: readonly number[]) => services.taskNoteReader.itemsOfNotes(noteIds));

/**
 * Per-request batching: one SQL statement per kind of row a query needs,
 * whatever the number of items, notes or comments. Each loader is made the
 * first time a resolver of its request asks for it (see createLoaders),
 * never shared between requests; `budget` is that answer's, for the readers
 * that check it before they load.
 */
const LOADERS = {
  memory: (services: Services) => new DataLoader((ids: readonly string[]) => services.taskReader.memoriesByIds(ids)),
  item: (services: Services) => new DataLoader((ids: readonly string[]) => services.taskReader.itemsByIds(ids)),
  /** The live items of a task, in list order (at most 500): numbers, pages and refs start from them. */
  taskItems: (services: Services) => new SettledLoader((taskIds: readonly number[]) => services.taskReader.liveItemsOfTasks(taskIds)),
  /**
   * Items by id for what an answer cites or names beside the live list (a
   * deleted item in [[#id]], dependsOn, a brief or a comment). Batched over
   * a turn of the event loop rather than a tick, so the citations of every
   * field resolved together cost one statement.
   */
  citedItems: (services: Services) =>
    new DataLoader((ids: readonly string[]) => services.taskReader.itemsByIds(ids), { batchScheduleFn: (dispatch) => setImmediate(dispatch) }),
  /** The ids of the items each note briefs, ascending (TaskNote.items); a page of Task.notes fills it as it reads. */
  noteItems: noteItemsLoader,
  /** A page of each task's notes, oldest first (Task.notes without item), with their items' ids. */
  taskNotes: (services: Services, _budget: ExecutionBudget, loaders: { noteItems: ReturnType<typeof noteItemsLoader> }) =>
    pageLoader(async (taskIds, { first, after }) => {
      const { pages, itemsByNote } = await services.taskNoteReader.notePagesOfTasks(taskIds, first, after);
      for (const [noteId, itemIds] of itemsByNote) loaders.noteItems.prime(noteId, itemIds);
      return pages;
    }),
  /** A page of the briefs on each item (Item.notes, when its nodes are asked for). */
  itemNotes: (services: Services) => pageLoader((itemIds, { first, after }) => services.taskNoteReader.notePagesOfItems(itemIds, first, after)),
  /** Each item's comment and brief counts and its briefs' dependencies (Item.comments/notes { totalCount } alone, Item.dependsOn). */
  itemFacts: (services: Services) => new DataLoader((itemIds: readonly number[]) => services.itemFacts.factsOfItems(itemIds)),
  /** Memories linked to each item. */
  related: (services: Services, budget: ExecutionBudget) => new SettledLoader((itemIds: readonly number[]) => relatedOfItems(services, budget, itemIds)),
  /** A page of comments on each item (Item.comments, when its nodes are asked for). */
  itemComments: (services: Services) =>
    pageLoader((itemIds, { first, after }) => services.commentReader.commentPagesOfItems(itemIds, first, after)),
  /** A page of each task's own comments, or with includeItems its items' too (Task.comments without item). */
  taskComments: (services: Services) =>
    pageLoader((taskIds, { first, after, includeItems }) => services.commentReader.commentPagesOfTasks(taskIds, includeItems ?? false, first, after)),
  /** The latest deliveries of each webhook (Webhook.deliveries), one statement per first asked. */
  webhookDeliveries: (services: Services) => new DataLoader<{ webhookId: number; first: number | null }, WebhookDeliveryEntity[], string>(
    async (keys) => {
      const byFirst = new Map<number | null, number[]>();
      for (const key of keys) appendTo(byFirst, key.first, key.webhookId);
      const answers = new Map<string, WebhookDeliveryEntity[] | Error>();
      await Promise.all([...byFirst].map(async ([first, ids]) => {
        try {
          const latest = await services.webhooks.latestDeliveries(ids, first);
          for (const id of ids) answers.set(`${id}:${first}`, latest.get(id) ?? []);
        } catch (error) {
          for (const id of ids) answers.set(`${id}:${first}`, error as Error);
        }
      }));
      return keys.map((key) => answers.get(`${key.webhookId}:${key.first}`)!);
    },
    { cacheKeyFn: (key) => `${key.webhookId}:${key.first}` },
  ),
  /** The delivery that stopped each inactive webhook (Webhook.stoppedBy), one statement for all. */
  webhookStops: (services: Services) => new DataLoader(async (webhookIds: readonly number[]) => {
    const stops = await services.webhooks.stoppedBy(webhookIds);
    return webhookIds.map((id) => stops.get(id) ?? null);
  }),
  /** The live claim on each item (Item.claim). */
  claim: (services: Services) => new SettledLoader((itemIds: readonly number[]) => services.claimReader.claimsOfItems(itemIds)),
  /** What each item waits for (Item.blockedBy, Item.ready). */
  blockers: (services: Services) => new SettledLoader((itemIds: readonly number[]) => services.claimReader.blockersOfItems(itemIds)),
  /** The items waiting for each item (Item.blocks). */
  waiters: (services: Services) => new SettledLoader((itemIds: readonly number[]) => services.claimReader.waitersOfItems(itemIds)),
  /** The sessions holding claims on each task's items (Task.claimedBy). */
  taskClaimHolders: (services: Services) => new DataLoader((taskIds: readonly number[]) => services.claimReader.claimHoldersOfTasks(taskIds)),
  /** The items each session holds a live claim on (Session.claims). */
  sessionClaims: (services: Services) => new DataLoader((sessionIds: readonly string[]) => services.claimReader.claimedItemsOfSessions(sessionIds)),
  ...SESSION_LOADERS,
};

export type Loaders = { readonly [name in keyof typeof LOADERS]: ReturnType<(typeof LOADERS)[name]> };

/**
 * A request's loaders, each made on first use: the getters sit once on the
 * prototype, and the first read of one makes its loader and keeps it as the
 * instance's own property. Most requests use a few of the 25 (the
 * `{ __typename }` floor none), and making all of them up front was 3 % of the
 * floor's profile, besides their garbage.
 */
class RequestLoaders {
  constructor(readonly services: Services, readonly budget: ExecutionBudget) {}
}
for (const [name, make] of Object.entries(LOADERS) as [string, (services: Services, budget: ExecutionBudget, loaders: Loaders) => unknown][]) {
  Object.defineProperty(RequestLoaders.prototype, name, {
    get(this: RequestLoaders) {
      const loader = make(this.services, this.budget, this as unknown as Loaders);
      Object.defineProperty(this, name, { value: loader, enumerable: true });
      return loader;
    },
  });
}

/** This request's loaders (and each subscription event's): see RequestLoaders. */
export function createLoaders(services: Services, budget: ExecutionBudget): Loaders {
  return new RequestLoaders(services, budget) as unknown as Loaders;
}

/** Forgets every row a request's loaders hold: after a mutation, what was loaded before it may be stale. */
export function clearLoaders(loaders: Loaders): void {
  // Only the loaders made so far are own properties (RequestLoaders); the rest hold nothing yet.
  for (const loader of Object.values(loaders)) if (loader instanceof DataLoader) loader.clearAll();
}
