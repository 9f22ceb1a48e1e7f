import type { EntityManager } from 'typeorm';
import { clockRowSql, dbNowSql, dbStampSql, kindOf } from '../../db/db-clock.js';
import type { DatabaseKind } from '../../db/data-source.js';
import type { ClaimEntity, ItemEntity, MemoryEntity } from '../../db/entities/index.js';
import type { HistoryAction } from '../../domain/history.js';
import type { ItemChange } from '../../domain/list-diff.js';
import { scopeCondition } from '../kernel/domain-scope.js';
import { CLAIM_WIDTH, claimColumns, claimOf, itemColumns, itemOf, ITEM_WIDTH, memoryColumns, memoryOf } from '../kernel/entity-rows.js';
import { distinct, num, placeholders, runStatement, selectRows } from '../kernel/statements.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import { HOLD_TASK_HISTORY, insertTaskEvent, TRY_TASK_HISTORY, latestRecorded, type HistoryTip } from '../task-aggregate/history-rows.js';
import { snapshotOf } from '../task-aggregate/task-store.js';
import { markClaimedUntil } from '../task-aggregate/ready-rows.js';
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
 * session taking its own lapsed row again keeps what the row said. The
 * claim is stamped with the database's clock as this statement runs, after
 * every lock the write waited for, and ends `ttlSeconds` later, so no claim
 * is handed out already expired. Returns its stamps; null when another
 * session's live claim holds the item. The item's ready row carries the
 * new expiry. `holdHistory: 'try'` (PostgreSQL): the task's history lock is
 * taken only if free, and null comes back when it is not, for a write that
 * holds another task's locks already (claimNext with finish): waiting there
 * could close a cycle with a writer doing the same the other way round.
 */
export async function takeClaim(
  manager: EntityManager,
  claim: Pick<ClaimEntity, 'itemId' | 'taskId' | 'sessionId' | 'owner'>,
  ttlSeconds: number,
  { holdHistory = false }: { holdHistory?: boolean | 'try' } = {},
): Promise<Pick<ClaimEntity, 'claimedAt' | 'expiresAt'> | null> {
  const kind = kindOf(manager);
  const values = [claim.itemId, claim.taskId, claim.sessionId, ttlSeconds, claim.owner];
  // Parameters are cast: PostgreSQL types a SELECT's parameters on their own, not as the columns they go into.
  const insert = `INSERT INTO "claims" ("itemId", "taskId", "sessionId", "claimedAt", "expiresAt", "owner")
     SELECT CAST(? AS INTEGER), CAST(? AS INTEGER), CAST(? AS VARCHAR(64)), ${dbStampSql(kind, 't."clock"')}, ${dbStampSql(kind, 't."clock"', '?')}, CAST(? AS VARCHAR(64))
     FROM ${kind === 'postgres' ? 't' : clockRowSql(kind)} WHERE 1 = 1
     ON CONFLICT ("itemId") DO UPDATE SET "taskId" = excluded."taskId", "sessionId" = excluded."sessionId",
       "claimedAt" = excluded."claimedAt", "expiresAt" = excluded."expiresAt", "owner" = excluded."owner",
       "takenFrom" = CASE WHEN "claims"."sessionId" = excluded."sessionId" THEN "claims"."takenFrom" ELSE "claims"."sessionId" END
     WHERE NOT (${claimIsLive('"claims"', kind)})
     RETURNING "itemId", "claimedAt", "expiresAt"`;
  if (kind === 'postgres') {
    // One round trip: (with holdHistory) the task's history lock (holdTaskHistory), the clock read after it, the
    // claim, and its ready row's expiry.
    const clock = holdHistory === 'try' ? `SELECT clock_timestamp() AS "clock" FROM (SELECT ${TRY_TASK_HISTORY} AS "held") h WHERE h."held"`
      : holdHistory ? `SELECT clock_timestamp() AS "clock" FROM (SELECT ${HOLD_TASK_HISTORY}) h` : `SELECT clock_timestamp() AS "clock"`;
    const [row] = await selectRows(manager, `WITH t AS (${clock}), c AS (${insert}),
      r AS (UPDATE "ready_items" SET "claimedUntil" = c."expiresAt" FROM c WHERE "ready_items"."itemId" = c."itemId" RETURNING 1)
      SELECT c."claimedAt", c."expiresAt" FROM c`, holdHistory ? [claim.taskId, ...values] : values);
    return row ? { claimedAt: row[0] as string, expiresAt: row[1] as string } : null;
  }
  const [row] = await selectRows(manager, insert, values);
  if (!row) return null;
  const stamps = { claimedAt: row[1] as string, expiresAt: row[2] as string };
  await markClaimedUntil(manager, [claim.itemId], '?', [stamps.expiresAt]);
  return stamps;
}

/**
 * The claim row of an item (live or not) as the fence reads it, and the
 * database's time in the same statement: read in the write's transaction,
 * after the item's row is written (see TaskService.updateItem). With `end`
 * the write settles the item and its claim ends too: endClaimsOnItems reads
 * the row as it was and ends it.
 */
export async function claimRowForFence(manager: EntityManager, itemId: number, { end = false }: { end?: boolean } = {}): Promise<ClaimBefore> {
  if (end) return endClaimsOnItems(manager, [itemId], { leavingReady: true, readingBefore: itemId });
  const [row] = await selectRows(manager, claimRowRead(kindOf(manager)), [itemId]);
  return claimBeforeOf(row);
}

/** An item's claim row before a write ended it (null: it never had one), and the database's time as it was read. */
export interface ClaimBefore {
  claim: ClaimEntity | null;
  now: string | null;
}

function claimRowRead(kind: DatabaseKind): string {
  return `SELECT ${claimColumns('c')}, ${dbNowSql(kind)} FROM "claims" c WHERE c."itemId" = ?`;
}

function claimBeforeOf(row: unknown[] | undefined): ClaimBefore {
  return row ? { claim: claimOf(row), now: row[CLAIM_WIDTH] as string } : { claim: null, now: null };
}

/** Moves a claim's expiry to `ttlSeconds` after the database's clock as the statement runs (its holder renewing it), and its ready row's with it: the new expiry. */
export async function setClaimExpiry(manager: EntityManager, itemId: number, ttlSeconds: number): Promise<string> {
  const kind = kindOf(manager);
  const [[expiresAt]] = await selectRows(manager, `UPDATE "claims" SET "expiresAt" = ${dbStampSql(kind, 'clock_timestamp()', '?')} WHERE "itemId" = ? RETURNING "expiresAt"`,
    [ttlSeconds, itemId]);
  await markClaimedUntil(manager, [itemId], '?', [expiresAt]);
  return expiresAt as string;
}

/**
 * Ends the live claims on these items (settled or deleted work): no history
 * of its own, the change that ended it has one, and the end is accounted for
 * (noteClaimsEnded), so the expiry sweeper never tells it as an expiry. The
 * row stays, expired by the database's clock, so a session whose claim it had
 * taken over is still fenced: its late DONE on finished work is refused, not
 * answered DONE. `readingBefore` (one of the items): answers that item's
 * claim row as it was before the end, for the claims fence's verdict on the
 * claim being ended; on PostgreSQL read and ended in one statement (a
 * refusal rolls the end back).
 */
export async function endClaimsOnItems(manager: EntityManager, itemIds: readonly number[], options?: { leavingReady?: boolean }): Promise<void>;
export async function endClaimsOnItems(manager: EntityManager, itemIds: readonly number[], options: { leavingReady?: boolean; readingBefore: number }): Promise<ClaimBefore>;
export async function endClaimsOnItems(
  manager: EntityManager,
  itemIds: readonly number[],
  { leavingReady = false, readingBefore }: { leavingReady?: boolean; readingBefore?: number } = {},
): Promise<ClaimBefore | void> {
  if (itemIds.length === 0) return readingBefore === undefined ? undefined : { claim: null, now: null };
  const ids = distinct(itemIds);
  const kind = kindOf(manager);
  const end = `UPDATE "claims" SET "expiresAt" = ${dbNowSql(kind)} WHERE "itemId" IN (${placeholders(ids.length)}) AND ${claimIsLive('"claims"', kind)}`;
  let before: unknown[] | undefined;
  if (readingBefore === undefined) await runStatement(manager, end, ids);
  else if (kind === 'postgres') {
    // Both parts see the rows as they were before the statement.
    [before] = await selectRows(manager, `WITH f AS (${claimRowRead(kind)}), e AS (${end} RETURNING 1) SELECT * FROM f`, [readingBefore, ...ids]);
  } else {
    [before] = await selectRows(manager, claimRowRead(kind), [readingBefore]);
    await runStatement(manager, end, ids);
  }
  // Items being settled or deleted (`leavingReady`) lose their ready rows with the task's write (recordTaskChange).
  if (!leavingReady) await markClaimedUntil(manager, ids, `(SELECT c."expiresAt" FROM "claims" c WHERE c."itemId" = "ready_items"."itemId")`);
  await noteClaimsEnded(manager, 'itemId', ids);
  if (readingBefore !== undefined) return claimBeforeOf(before);
}

/** Ends every live claim of a session (it finished), keeping the rows as endClaimsOnItems does. */
export async function endClaimsOfSession(manager: EntityManager, sessionId: string): Promise<void> {
  const kind = kindOf(manager);
  const ended = await selectRows(manager, `UPDATE "claims" SET "expiresAt" = ${dbNowSql(kind)} WHERE "sessionId" = ? AND ${claimIsLive('"claims"', kind)} RETURNING "itemId"`, [sessionId]);
  await markClaimedUntil(manager, ended.map(([itemId]) => num(itemId)), `(SELECT c."expiresAt" FROM "claims" c WHERE c."itemId" = "ready_items"."itemId")`);
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
 * SQL saying a ready row (`r`) is free: never claimed, or its claim has
 * ended by the database's clock (claimIsLive's converse), so a lapsed claim
 * frees its item the moment it lapses.
 */
function readyRowIsFree(kind: DatabaseKind): string {
  return `(r."claimedUntil" IS NULL OR r."claimedUntil" <= ${dbNowSql(kind)})`;
}

/** The scope condition on a ready row's domain (domain-scope.ts), with its parameters. */
function readyScope(domain: string): { where: string; scope: string[] } {
  const scope: string[] = [];
  const where = scopeCondition('r."domain"', domain, (value) => {
    scope.push(value);
    return '?';
  });
  return { where, scope };
}

/**
 * The ready queue of a domain (and those under it), read from the ready
 * rows (task-aggregate/ready-rows.ts): live PENDING or IN_PROGRESS items of
 * open knowledge-base tasks (never a plan's, never an archived task's), with
 * no live claim, whose every dependency is settled or deleted; oldest task
 * first, then list order. The first `limit`.
 */
export async function readyItems(manager: EntityManager, domain: string, { limit }: { limit: number }): Promise<ReadyItem[]> {
  const kind = kindOf(manager);
  const { where, scope } = readyScope(domain);
  const sql = `SELECT ${itemColumns('i')}, r."domain" FROM "ready_items" r INNER JOIN "items" i ON i."id" = r."itemId"
    WHERE ${where} AND ${readyRowIsFree(kind)}
    ORDER BY r."taskId" ASC, r."position" ASC, r."itemId" ASC LIMIT ?`;
  const rows = await selectRows(manager, sql, [...scope, limit]);
  return rows.map((row) => ({ item: itemOf(row), domain: row[ITEM_WIDTH] as string | null }));
}

/**
 * claimNext's candidate: one free ready item of the scope, leaving out
 * `passed`, in one indexed statement. Taken by place in the list before task
 * (every task's first ready item, then every task's next), so agents taking
 * items one after another land on different tasks and do not queue on one
 * task's history; dependency order holds because only ready items have rows.
 * On PostgreSQL the ready row and the item's row are locked FOR UPDATE SKIP
 * LOCKED: concurrent callers pass over each other's candidates instead of
 * waiting, and an item a write holds (a late DONE being fenced) is passed
 * over until that write ends, as the fence expects (claim-fence.ts). The
 * item's own state is checked again beside its row.
 */
export async function takeReadyCandidate(
  manager: EntityManager, domain: string, passed: readonly number[], sessionId: string,
  /** A task whose ready items come first: the one this write just settled an item of, whose locks it holds already. */
  preferTask: number | null = null,
): Promise<(ReadyItem & { task: MemoryEntity; sessionClaims: number }) | null> {
  const kind = kindOf(manager);
  const { where, scope } = readyScope(domain);
  const skip = passed.length ? ` AND r."itemId" NOT IN (${placeholders(passed.length)})` : '';
  const locking = kind === 'postgres' ? ' FOR UPDATE OF r, i SKIP LOCKED' : '';
  // With the candidate, the live claims the session holds (liveClaimCount), for the cap, and its task's row, which the
  // claim's answer shows: one round trip, not three.
  const sql = `SELECT ${itemColumns('i')}, r."domain", (SELECT COUNT(*) FROM "claims" c WHERE c."sessionId" = ? AND ${claimIsLive('c', kind)}), ${memoryColumns('m')}
    FROM "ready_items" r INNER JOIN "items" i ON i."id" = r."itemId" INNER JOIN "memories" m ON m."id" = r."taskId"
    WHERE ${where} AND ${readyRowIsFree(kind)} AND i."deleted" = ? AND i."state" IN ('PENDING', 'IN_PROGRESS')${skip}
    ORDER BY ${preferTask === null ? '' : 'CASE WHEN r."taskId" = ? THEN 0 ELSE 1 END, '}r."position" ASC, r."taskId" ASC, r."itemId" ASC LIMIT 1${locking}`;
  const [row] = await selectRows(manager, sql, [sessionId, ...scope, false, ...passed, ...(preferTask === null ? [] : [preferTask])]);
  return row ? { item: itemOf(row), domain: row[ITEM_WIDTH] as string | null, sessionClaims: num(row[ITEM_WIDTH + 1]), task: memoryOf(row, ITEM_WIDTH + 2) } : null;
}
