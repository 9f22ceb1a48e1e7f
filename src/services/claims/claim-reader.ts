import type { EntityManager } from 'typeorm';
import { dbNowSql, kindOf } from '../../db/db-clock.js';
import type { ClaimEntity, ItemDependencyEntity, ItemEntity } from '../../db/entities/index.js';
import { cleanDomain } from '../../domain/domains.js';
import { pageSize } from '../../domain/paging.js';
import { CLAIM_WIDTH, ITEM_DEPENDENCY_WIDTH, claimColumns, claimOf, itemDependencyColumns, itemDependencyOf } from '../kernel/entity-rows.js';
import { distinct, num, placeholders, selectRows } from '../kernel/statements.js';
import { scopeCondition } from '../kernel/domain-scope.js';
import { itemsWithIds } from '../task-aggregate/item-rows.js';
import { claimIsLive, liveClaimsOf, readyItems } from './claim-store.js';

/**
 * Reads for claims and dependencies, shaped for batching: each takes many
 * keys and answers in one statement (the GraphQL layer's per-request
 * DataLoaders wrap them).
 */
export class ClaimReader {
  constructor(private readonly reader: () => EntityManager) {}

  /** The live claim on each item, or null. */
  async claimsOfItems(itemIds: readonly number[]): Promise<(ClaimEntity | null)[]> {
    const rows = await liveClaimsOf(this.reader(), itemIds);
    const byItem = new Map(rows.map((row) => [row.itemId, row]));
    return itemIds.map((id) => byItem.get(id) ?? null);
  }

  /** The sessions holding a live claim on some item of each task, earliest claim first: one statement for a page of tasks. */
  async claimHoldersOfTasks(taskIds: readonly number[]): Promise<string[][]> {
    const manager = this.reader();
    const wanted = distinct(taskIds);
    const rows = wanted.length === 0 ? [] : await selectRows(manager, `SELECT c."taskId", c."sessionId", MIN(c."claimedAt") AS "since" FROM "claims" c
      WHERE c."taskId" IN (${placeholders(wanted.length)}) AND ${claimIsLive('c', kindOf(manager))}
      GROUP BY c."taskId", c."sessionId" ORDER BY "since" ASC, c."sessionId" ASC`, wanted);
    const byTask = new Map<number, string[]>();
    for (const [taskId, sessionId] of rows) {
      const holders = byTask.get(num(taskId)) ?? [];
      holders.push(String(sessionId));
      byTask.set(num(taskId), holders);
    }
    return taskIds.map((id) => byTask.get(id) ?? []);
  }

  /** Each session's live claims, as the items they hold, oldest claim first. */
  async claimedItemsOfSessions(sessionIds: readonly string[]): Promise<ItemEntity[][]> {
    const manager = this.reader();
    const wanted = distinct(sessionIds);
    const claims = wanted.length === 0 ? [] : (await selectRows(manager, `SELECT ${claimColumns('c')} FROM "claims" c
      WHERE c."sessionId" IN (${placeholders(wanted.length)}) AND ${claimIsLive('c', kindOf(manager))}
      ORDER BY c."claimedAt" ASC, c."itemId" ASC`, wanted)).map((row) => claimOf(row));
    const items = await itemsWithIds(manager, claims.map((claim) => claim.itemId));
    const byId = new Map(items.map((item) => [item.id, item]));
    return sessionIds.map((sessionId) => claims
      .filter((claim) => claim.sessionId === sessionId)
      .map((claim) => byId.get(claim.itemId))
      .filter((item): item is ItemEntity => !!item));
  }

  /**
   * What each item waits for, from its briefs and its own `after` alike: one
   * edge per item waited for (the earliest brief's reason), in the order the
   * briefs name them, then those only `after` names.
   */
  async blockersOfItems(itemIds: readonly number[]): Promise<ItemDependencyEntity[][]> {
    return blockersIn(inWaitOrder(await dependencyRows(this.reader(), 'itemId', itemIds)), itemIds);
  }

  /** The ids of the items waiting for each item, each once, in id order. */
  async waitersOfItems(itemIds: readonly number[]): Promise<number[][]> {
    return waitersIn((await dependencyRows(this.reader(), 'dependsOnId', itemIds)).sort((a, b) => a.itemId - b.itemId), itemIds);
  }

  /**
   * What a page's rows show of coordination, in one statement: what each item
   * waits for and what waits for it (as blockersOfItems and waitersOfItems
   * answer them) and, with `claims`, each one's live claim (claimsOfItems). A
   * dashboard page shows all three, and on PostgreSQL each statement is a
   * round trip: one read where there were three.
   */
  async coordinationOfItems(itemIds: readonly number[], { claims }: { claims: boolean }): Promise<{
    claims: (ClaimEntity | null)[]; blockers: ItemDependencyEntity[][]; waiters: number[][];
  }> {
    if (itemIds.length === 0) return { claims: [], blockers: [], waiters: [] };
    const manager = this.reader();
    const wanted = distinct(itemIds);
    const list = placeholders(wanted.length);
    // One row shape for both: a kind, then the claim's columns and the edge's, each branch NULL where the other's are,
    // so each row maps with claimOf or itemDependencyOf at its offset. The first branch names the columns, and each
    // needs a name of its own (PostgreSQL's rows come keyed by name). The edges are put in blockersOfItems' order here.
    const edgeAt = claims ? 1 + CLAIM_WIDTH : 1;
    const claimRows = claims
      ? `SELECT 'claim' AS "kind", ${claimColumns('c')}, ${Array.from({ length: ITEM_DEPENDENCY_WIDTH }, (_, i) => `NULL AS "edge${i}"`).join(', ')} FROM "claims" c
      WHERE c."itemId" IN (${list}) AND ${claimIsLive('c', kindOf(manager))}
      UNION ALL `
      : '';
    const rows = await selectRows(manager, `${claimRows}SELECT 'edge' AS "kind", ${claims ? 'NULL, '.repeat(CLAIM_WIDTH) : ''}${itemDependencyColumns('d')}
      FROM "item_dependencies" d WHERE d."itemId" IN (${list}) OR d."dependsOnId" IN (${list}) ORDER BY 1`,
    claims ? [...wanted, ...wanted, ...wanted] : [...wanted, ...wanted]);
    const live = new Map<number, ClaimEntity>();
    const edges: ItemDependencyEntity[] = [];
    for (const row of rows) {
      if (row[0] === 'claim') {
        const claim = claimOf(row, 1);
        live.set(claim.itemId, claim);
      } else {
        edges.push(itemDependencyOf(row, edgeAt));
      }
    }
    return {
      claims: itemIds.map((id) => live.get(id) ?? null),
      blockers: blockersIn(inWaitOrder(edges), itemIds),
      waiters: waitersIn([...edges].sort((a, b) => a.itemId - b.itemId), itemIds),
    };
  }

  /**
   * Why nothing may be ready in a domain (and those under it), in one
   * statement over the same items readyItems walks (knowledge-base tasks
   * that are open): how many are still work (todo or doing), how many of
   * those a live claim holds, how many unclaimed ones wait for an unsettled
   * item, how many are stuck (blocked or failed), and when the soonest live
   * claim ends, by the database's clock (`now`).
   */
  async queueState(domain: string): Promise<QueueState> {
    const manager = this.reader();
    const kind = kindOf(manager);
    const scope: string[] = [];
    const where = scopeCondition('m."domain"', cleanDomain(domain), (value) => {
      scope.push(value);
      return '?';
    });
    const [row] = await selectRows(manager, `SELECT
        SUM(CASE WHEN i."state" IN ('PENDING', 'IN_PROGRESS') THEN 1 ELSE 0 END),
        SUM(CASE WHEN i."state" IN ('PENDING', 'IN_PROGRESS') AND c."itemId" IS NOT NULL THEN 1 ELSE 0 END),
        SUM(CASE WHEN i."state" IN ('PENDING', 'IN_PROGRESS') AND c."itemId" IS NULL AND EXISTS (SELECT 1 FROM "item_dependencies" d
          INNER JOIN "items" x ON x."id" = d."dependsOnId" WHERE d."itemId" = i."id" AND x."deleted" = ? AND x."state" NOT IN ('DONE', 'DROPPED')) THEN 1 ELSE 0 END),
        SUM(CASE WHEN i."state" IN ('BLOCKED', 'FAILED') THEN 1 ELSE 0 END),
        MIN(c."expiresAt"), ${dbNowSql(kind)}
      FROM "memories" m INNER JOIN "items" i ON i."taskId" = m."id"
      LEFT JOIN "claims" c ON c."itemId" = i."id" AND ${claimIsLive('c', kind)}
      WHERE m."kind" = 'TASK' AND m."taskState" = 'OPEN' AND m."sessionId" IS NULL AND ${where}
        AND i."deleted" = ? AND i."state" NOT IN ('DONE', 'DROPPED')`, [false, ...scope, false]);
    return {
      open: num(row?.[0] ?? 0), claimed: num(row?.[1] ?? 0), waiting: num(row?.[2] ?? 0), stuck: num(row?.[3] ?? 0),
      nextExpiry: (row?.[4] as string | null | undefined) ?? null, now: row?.[5] as string,
    };
  }

  /** The first `first` ready items of a domain and those under it (1..200, default 50): see readyItems. */
  async ready(domain: string, first?: number | null): Promise<ItemEntity[]> {
    const ready = await readyItems(this.reader(), cleanDomain(domain), { limit: pageSize(first) });
    return ready.map(({ item }) => item);
  }
}

/** A domain's open work as task_next explains an empty queue with it (ClaimReader.queueState). */
export interface QueueState {
  /** Items still work (todo or doing). */
  open: number;
  /** Of those, held by a live claim. */
  claimed: number;
  /** Of those unclaimed, waiting for an item that is not settled. */
  waiting: number;
  /** Blocked or failed: not work anyone can take, not settled either. */
  stuck: number;
  /** When the soonest live claim ends; null with none. */
  nextExpiry: string | null;
  /** The database's time at the read. */
  now: string;
}

/** Each item's edges to what it waits for, from rows in brief order: the first edge to each item waited for. One pass over the rows, whatever the number of items. */
function blockersIn(rows: readonly ItemDependencyEntity[], itemIds: readonly number[]): ItemDependencyEntity[][] {
  const byItem = new Map<number, Map<number, ItemDependencyEntity>>();
  for (const row of rows) {
    let edges = byItem.get(row.itemId);
    if (!edges) byItem.set(row.itemId, (edges = new Map()));
    if (!edges.has(row.dependsOnId)) edges.set(row.dependsOnId, row);
  }
  return itemIds.map((itemId) => [...(byItem.get(itemId)?.values() ?? [])]);
}

/** Each item's waiters' ids, each once, from rows in waiter id order. One pass over the rows. */
function waitersIn(rows: readonly ItemDependencyEntity[], itemIds: readonly number[]): number[][] {
  const byItem = new Map<number, Set<number>>();
  for (const row of rows) {
    let waiters = byItem.get(row.dependsOnId);
    if (!waiters) byItem.set(row.dependsOnId, (waiters = new Set()));
    waiters.add(row.itemId);
  }
  return itemIds.map((itemId) => [...(byItem.get(itemId) ?? [])]);
}

/**
 * Edges in the order waits are shown: by brief, oldest first, each brief's in
 * the order it names them, then those the item's own `after` declared (no
 * brief), in the order given. Sorted here, not in SQL: the databases sort a
 * NULL note at opposite ends.
 */
function inWaitOrder(rows: ItemDependencyEntity[]): ItemDependencyEntity[] {
  const briefOf = (row: ItemDependencyEntity) => row.noteId ?? Number.MAX_SAFE_INTEGER;
  return rows.sort((a, b) => briefOf(a) - briefOf(b) || a.id - b.id);
}

/** The dependency edges whose `key` is one of `ids`: one fixed statement per IN-list length. */
async function dependencyRows(manager: EntityManager, key: 'itemId' | 'dependsOnId', ids: readonly number[]): Promise<ItemDependencyEntity[]> {
  if (ids.length === 0) return [];
  const wanted = distinct(ids);
  const sql = `SELECT ${itemDependencyColumns('d')} FROM "item_dependencies" d WHERE d."${key}" IN (${placeholders(wanted.length)})`;
  return (await selectRows(manager, sql, wanted)).map((row) => itemDependencyOf(row));
}
