import type { EntityManager } from 'typeorm';
import { dbNowSql, kindOf } from '../../db/db-clock.js';
import type { DatabaseKind } from '../../db/data-source.js';
import type { ClaimEntity, ItemEntity, MemoryEntity } from '../../db/entities/index.js';
import type { HistoryAction } from '../../domain/history.js';
import type { ItemChange } from '../../domain/list-diff.js';
import { scopeCondition } from '../kernel/domain-scope.js';
import { CLAIM_WIDTH, claimColumns, claimOf, itemColumns, itemOf, ITEM_WIDTH } from '../kernel/entity-rows.js';
import { distinct, num, placeholders, runStatement, selectRows } from '../kernel/statements.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import { insertTaskEvent, latestRecorded, type HistoryTip } from '../task-aggregate/history-rows.js';
import { snapshotOf } from '../task-aggregate/task-store.js';
import { noteClaimsEnded } from './claim-expiry.js';

/**
 * Claims as rows, and the ready queue. Every "is it claimed" compares the
 * row's expiry with the database's clock in SQL, so an expired row is no
 * claim wherever it is read, and nothing ever has to clean one up.
 */

/** The one place a claim row (as `alias`) is said to hold: its expiry is still ahead of the database's clock. */
export function claimIsLive(alias: string, kind: DatabaseKind): string {
  return `${alias}."expiresAt" > ${dbNowSql(kind)}`;
}

/** The live claims on these items (at most one each). */
export async function liveClaimsOf(manager: EntityManager, itemIds: readonly number[]): Promise<ClaimEntity[]> {
  if (itemIds.length === 0) return [];
  const sql = `SELECT ${claimColumns('c')} FROM "claims" c WHERE c."itemId" IN (${placeholders(itemIds.length)}) AND ${claimIsLive('c', kindOf(manager))}`;
  return (await selectRows(manager, sql, itemIds)).map((row) => claimOf(row));
}

/** How many live claims a session holds. */
export async function liveClaimCount(manager: EntityManager, sessionId: string): Promise<number> {
  const [[count]] = await selectRows(manager, `SELECT COUNT(*) FROM "claims" c WHERE c."sessionId" = ? AND ${claimIsLive('c', kindOf(manager))}`, [sessionId]);
  return num(count);
}

/** How many live claims the sessions of one bearer token's principal hold between them. */
export async function liveClaimCountOfOwner(manager: EntityManager, owner: string): Promise<number> {
  const [[count]] = await selectRows(manager, `SELECT COUNT(*) FROM "claims" c WHERE c."owner" = ? AND ${claimIsLive('c', kindOf(manager))}`, [owner]);
  return num(count);
}

/**
 * Takes the claim row for `sessionId` when no live claim holds it: a new row,
 * or an expired one taken over, in one statement (the WHERE of ON CONFLICT
 * is checked on the row as committed, so of two takers only one gets it).
 * An expired row of another session is remembered as taken from it (the
 * fence refuses that session's late changes as taken over); the same
 * session taking its own lapsed row again keeps what the row said.
 * False when another session's live claim holds the item.
 */
export async function takeClaim(
  manager: EntityManager,
  claim: Pick<ClaimEntity, 'itemId' | 'taskId' | 'sessionId' | 'claimedAt' | 'expiresAt' | 'owner'>,
): Promise<boolean> {
  const rows = await selectRows(manager, `INSERT INTO "claims" ("itemId", "taskId", "sessionId", "claimedAt", "expiresAt", "owner") VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT ("itemId") DO UPDATE SET "taskId" = excluded."taskId", "sessionId" = excluded."sessionId",
       "claimedAt" = excluded."claimedAt", "expiresAt" = excluded."expiresAt", "owner" = excluded."owner",
       "takenFrom" = CASE WHEN "claims"."sessionId" = excluded."sessionId" THEN "claims"."takenFrom" ELSE "claims"."sessionId" END
     WHERE NOT (${claimIsLive('"claims"', kindOf(manager))})
     RETURNING "itemId"`, [claim.itemId, claim.taskId, claim.sessionId, claim.claimedAt, claim.expiresAt, claim.owner]);
  return rows.length > 0;
}

/**
 * The claim row of an item (live or not) as the fence reads it, and the
 * database's time in the same statement: read in the write's transaction,
 * after the item's row is written (see TaskService.updateItem).
 */
export async function claimRowForFence(manager: EntityManager, itemId: number): Promise<{ claim: ClaimEntity | null; now: string | null }> {
  const [row] = await selectRows(manager, `SELECT ${claimColumns('c')}, ${dbNowSql(kindOf(manager))} FROM "claims" c WHERE c."itemId" = ?`, [itemId]);
  return row ? { claim: claimOf(row), now: row[CLAIM_WIDTH] as string } : { claim: null, now: null };
}

/** Moves a claim's expiry (its holder renewing it). */
export async function setClaimExpiry(manager: EntityManager, itemId: number, expiresAt: string): Promise<void> {
  await runStatement(manager, `UPDATE "claims" SET "expiresAt" = ? WHERE "itemId" = ?`, [expiresAt, itemId]);
}

/**
 * Ends the live claims on these items (settled or deleted work): no history
 * of its own, the change that ended it has one. The row stays, expired by the
 * database's clock, so a session whose claim it had taken over is still
 * fenced: its late DONE on finished work is refused, not answered DONE.
 */
export async function endClaimsOnItems(manager: EntityManager, itemIds: readonly number[]): Promise<void> {
  if (itemIds.length === 0) return;
  const ids = distinct(itemIds);
  const kind = kindOf(manager);
  await runStatement(manager, `UPDATE "claims" SET "expiresAt" = ${dbNowSql(kind)} WHERE "itemId" IN (${placeholders(ids.length)}) AND ${claimIsLive('"claims"', kind)}`, ids);
  // Ended on purpose, with a change of its own: not to be told as an expiry (claim-expiry.ts).
  await noteClaimsEnded(manager, 'itemId', ids);
}

/** Ends every live claim of a session (it finished), keeping the rows as endClaimsOnItems does. */
export async function endClaimsOfSession(manager: EntityManager, sessionId: string): Promise<void> {
  const kind = kindOf(manager);
  await runStatement(manager, `UPDATE "claims" SET "expiresAt" = ${dbNowSql(kind)} WHERE "sessionId" = ? AND ${claimIsLive('"claims"', kind)}`, [sessionId]);
  await noteClaimsEnded(manager, 'sessionId', [sessionId]);
}

/**
 * Records a claim taken or released in the task's history (the list as it
 * stands, and the claim as the change: from/to the holding session) and in
 * the change log. The task's version is left alone: a claim changes no
 * item, so it must not make another agent's expectedVersion stale. `tip` is
 * the task as the write loaded it, whose latest history row's list the
 * row's delta starts from (a fenced change records the claim it overrode
 * after writing the item, so the list may differ); null when the write
 * loaded no task (claimNext), whose list then is the latest row's.
 */
export async function recordClaim(
  uow: UnitOfWork,
  task: Pick<MemoryEntity, 'id' | 'domain'>,
  items: readonly ItemEntity[],
  action: HistoryAction,
  change: ItemChange,
  tip: HistoryTip | null,
): Promise<void> {
  const list = snapshotOf(items);
  await insertTaskEvent(uow, task.id, action, tip ? latestRecorded(tip) : list, list, [change]);
  if (tip) tip.recorded = list;
  uow.emit({
    entity: 'TASK', id: String(task.id), action, memory: { kind: 'TASK', domain: task.domain },
    about: { itemId: change.itemId, sessionId: change.to ?? change.from },
  });
}

/** A ready item and its task's domain, as readyItems answers them. */
export interface ReadyItem {
  item: ItemEntity;
  domain: string | null;
}

/**
 * The ready queue of a domain (and those under it): live PENDING or
 * IN_PROGRESS items of open knowledge-base tasks (never a plan's, never an
 * archived task's), with no live claim, whose every dependency is settled or
 * deleted; oldest task first, then list order. The first `limit`, leaving
 * out the items `passed`; with `lock` (claimNext on PostgreSQL) the chosen
 * item rows are locked FOR UPDATE, skipping any another transaction holds,
 * so concurrent callers pass over each other's candidates instead of waiting.
 */
export async function readyItems(
  manager: EntityManager,
  domain: string,
  { limit, passed = [], lock = false }: { limit: number; passed?: readonly number[]; lock?: boolean },
): Promise<ReadyItem[]> {
  const kind = kindOf(manager);
  const scope: string[] = [];
  const where = scopeCondition('m."domain"', domain, (value) => {
    scope.push(value);
    return '?';
  });
  const skip = passed.length ? ` AND i."id" NOT IN (${placeholders(passed.length)})` : '';
  const locking = lock && kind === 'postgres' ? ' FOR UPDATE OF i SKIP LOCKED' : '';
  // The scope's tasks come first, from their own index and in id order (a sorted sub-select, which neither database
  // folds into the join: PostgreSQL keeps a sub-select with ORDER BY, SQLite one with a LIMIT, and -1 is none), so
  // the items are walked task by task and the walk stops at the page; the lock, after the order, takes only the rows
  // handed back.
  const sql = `SELECT ${itemColumns('i')}, m."domain" FROM (SELECT m."id", m."domain" FROM "memories" m
      WHERE m."kind" = 'TASK' AND m."taskState" = 'OPEN' AND m."sessionId" IS NULL AND ${where} ORDER BY m."id"${kind === 'sqlite' ? ' LIMIT -1' : ''}) m
    INNER JOIN "items" i ON i."taskId" = m."id"
    WHERE i."deleted" = ? AND i."state" IN ('PENDING', 'IN_PROGRESS')
      AND NOT EXISTS (SELECT 1 FROM "claims" c WHERE c."itemId" = i."id" AND ${claimIsLive('c', kind)})
      AND NOT EXISTS (SELECT 1 FROM "item_dependencies" d INNER JOIN "items" x ON x."id" = d."dependsOnId"
        WHERE d."itemId" = i."id" AND x."deleted" = ? AND x."state" NOT IN ('DONE', 'DROPPED'))${skip}
    ORDER BY m."id" ASC, i."position" ASC LIMIT ?${locking}`;
  const rows = await selectRows(manager, sql, [...scope, false, false, ...passed, limit]);
  return rows.map((row) => ({ item: itemOf(row), domain: row[ITEM_WIDTH] as string | null }));
}
