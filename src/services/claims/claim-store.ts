import type { EntityManager } from 'typeorm';
import { clockRowSql, dbNowSql, dbStampSql, kindOf } from '../../db/db-clock.js';
import type { DatabaseKind } from '../../db/data-source.js';
import type { ClaimEntity, ItemEntity, MemoryEntity } from '../../db/entities/index.js';
import type { HistoryAction } from '../../domain/history.js';
import type { ItemChange } from '../../domain/list-diff.js';
import { scopeCondition } from '../kernel/domain-scope.js';
import { CLAIM_WIDTH, claimColumns, claimOf, itemColumns, itemOf, ITEM_WIDTH } from '../kernel/entity-rows.js';
import { distinct, num, placeholders, runStatement, selectRows, type Statement } from '../kernel/statements.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import { holdTaskHistorySql, insertTaskEvent, latestRecorded, tryTaskHistorySql, type HistoryTip } from '../task-aggregate/history-rows.js';
import { snapshotOf } from '../task-aggregate/task-store.js';
import { markClaimedUntil } from '../task-aggregate/ready-rows.js';
import { accountClaimsEndedSql, noteClaimsEnded } from './claim-expiry.js';

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
 * The claim's upsert: a new row, or an expired one taken over, in one
 * statement (the WHERE of ON CONFLICT is checked on the row as committed, so
 * of two takers only one gets it). An expired row of another session is
 * remembered as taken from it (the fence refuses that session's late
 * changes as taken over); the same session taking its own lapsed row again
 * keeps what the row said. `item` and `task` are SQL for the ids, `from` a
 * source with the clock as `t."clock"`; its parameters are the session, the
 * ttl in seconds and the owner. Returns the claim's item, claimedAt and
 * expiresAt; no row when a live claim of another session holds the item.
 */
function claimUpsert(kind: DatabaseKind, item: string, task: string, from: string): string {
  // Parameters are cast: PostgreSQL types a SELECT's parameters on their own, not as the columns they go into.
  return `INSERT INTO "claims" ("itemId", "taskId", "sessionId", "claimedAt", "expiresAt", "owner")
     SELECT ${item}, ${task}, CAST(? AS VARCHAR(64)), ${dbStampSql(kind, 't."clock"')}, ${dbStampSql(kind, 't."clock"', '?')}, CAST(? AS VARCHAR(64))
     FROM ${from} WHERE 1 = 1
     ON CONFLICT ("itemId") DO UPDATE SET "taskId" = excluded."taskId", "sessionId" = excluded."sessionId",
       "claimedAt" = excluded."claimedAt", "expiresAt" = excluded."expiresAt", "owner" = excluded."owner",
       "takenFrom" = CASE WHEN "claims"."sessionId" = excluded."sessionId" THEN "claims"."takenFrom" ELSE "claims"."sessionId" END
     WHERE NOT (${claimIsLive('"claims"', kind)})
     RETURNING "itemId", "claimedAt", "expiresAt"`;
}

/**
 * Takes the claim row for `sessionId` when no live claim holds it
 * (claimUpsert). The claim is stamped with the database's clock as this
 * statement runs, after every lock the write waited for, and ends
 * `ttlSeconds` later, so no claim is handed out already expired. Returns its
 * stamps; null when another session's live claim holds the item. The item's
 * ready row carries the new expiry.
 */
export async function takeClaim(
  manager: EntityManager,
  claim: Pick<ClaimEntity, 'itemId' | 'taskId' | 'sessionId' | 'owner'>,
  ttlSeconds: number,
): Promise<Pick<ClaimEntity, 'claimedAt' | 'expiresAt'> | null> {
  const kind = kindOf(manager);
  const values = [claim.itemId, claim.taskId, claim.sessionId, ttlSeconds, claim.owner];
  const insert = claimUpsert(kind, 'CAST(? AS INTEGER)', 'CAST(? AS INTEGER)', kind === 'postgres' ? 't' : clockRowSql(kind));
  if (kind === 'postgres') {
    // One round trip: the clock, the claim, and its ready row's expiry.
    const [row] = await selectRows(manager, `WITH t AS (SELECT clock_timestamp() AS "clock"), c AS (${insert}),
      r AS (UPDATE "ready_items" SET "claimedUntil" = c."expiresAt" FROM c WHERE "ready_items"."itemId" = c."itemId" RETURNING 1)
      SELECT c."claimedAt", c."expiresAt" FROM c`, values);
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
 * once the item's row lock is held (see checkClaimFence). With `end`
 * the write settles the item and its claim ends too: endClaimsOnItems reads
 * the row as it was and ends it.
 */
export async function claimRowForFence(
  manager: EntityManager, itemId: number,
  /** `written`: PostgreSQL only, a write sent as a common table expression of the read (checkClaimFence's). */
  { end = false, written = null }: { end?: boolean; written?: Statement | null } = {},
): Promise<ClaimBefore> {
  if (end) return endClaimsOnItems(manager, [itemId], { leavingReady: true, readingBefore: itemId, written });
  const read = claimRowRead(kindOf(manager));
  const [row] = await selectRows(manager, written ? `WITH w AS (${written.sql}) ${read}` : read, [...(written?.parameters ?? []), itemId]);
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
export async function endClaimsOnItems(
  manager: EntityManager, itemIds: readonly number[],
  /** `written`: PostgreSQL only, a write sent in the read's statement (claimRowForFence's). */
  options: { leavingReady?: boolean; readingBefore: number; written?: Statement | null },
): Promise<ClaimBefore>;
export async function endClaimsOnItems(
  manager: EntityManager,
  itemIds: readonly number[],
  { leavingReady = false, readingBefore, written = null }: { leavingReady?: boolean; readingBefore?: number; written?: Statement | null } = {},
): Promise<ClaimBefore | void> {
  if (itemIds.length === 0) return readingBefore === undefined ? undefined : { claim: null, now: null };
  const ids = distinct(itemIds);
  const kind = kindOf(manager);
  const end = `UPDATE "claims" SET "expiresAt" = ${dbNowSql(kind)} WHERE "itemId" IN (${placeholders(ids.length)}) AND ${claimIsLive('"claims"', kind)}`;
  let before: unknown[] | undefined;
  let noted = false;
  if (readingBefore === undefined) await runStatement(manager, end, ids);
  else if (kind === 'postgres') {
    // Every part sees the rows as they were before the statement. The ends are accounted for in it (accountClaimsEndedSql,
    // noteClaimsEnded's statement), one round trip fewer on the fence's path: those this statement ends (e), and those
    // that had lapsed already (read as not live, so none of e's).
    [before] = await selectRows(manager, `WITH ${written ? `w AS (${written.sql}), ` : ''}f AS (${claimRowRead(kind)}), e AS (${end} RETURNING "itemId", "expiresAt"),
      n AS (${accountClaimsEndedSql(`SELECT e."itemId", e."expiresAt" FROM e
        UNION ALL SELECT c."itemId", c."expiresAt" FROM "claims" c WHERE c."itemId" IN (${placeholders(ids.length)}) AND NOT (${claimIsLive('c', kind)})`)})
      SELECT * FROM f`, [...(written?.parameters ?? []), readingBefore, ...ids, ...ids]);
    noted = true;
  } else {
    [before] = await selectRows(manager, claimRowRead(kind), [readingBefore]);
    await runStatement(manager, end, ids);
  }
  // Items being settled or deleted (`leavingReady`) lose their ready rows with the task's write (recordTaskChange).
  if (!leavingReady) await markClaimedUntil(manager, ids, `(SELECT c."expiresAt" FROM "claims" c WHERE c."itemId" = "ready_items"."itemId")`);
  if (!noted) await noteClaimsEnded(manager, 'itemId', ids);
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
  /** The unit of work's last write, the task's history lock held already (claimNext): the row goes with the change-log append (insertTaskEvent). */
  { last = false }: { last?: boolean } = {},
): Promise<void> {
  const list = snapshotOf(items);
  await insertTaskEvent(uow, task.id, action, tip ? latestRecorded(tip) : list, list, [change], { last });
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

/** What claimReadyItem took: the ready item and its claim's stamps, or the item with null stamps when its claim was refused. */
export interface ReadyClaim {
  /** The item chosen (null when none was taken), with its domain and the live claims the session and its owner held before this one. */
  ready: (ReadyItem & { sessionClaims: number; ownerClaims: number }) | null;
  /** The claim's stamps; null when a live claim of another session holds the item (taken since the queue was read). */
  stamps: Pick<ClaimEntity, 'claimedAt' | 'expiresAt'> | null;
  /** Nothing was taken, but free ready items were there: their tasks' history locks or rows were held by other writes. */
  busy: boolean;
}

/** How many free ready items (in hand-out order) one claim statement looks at before it answers busy. */
const CANDIDATES = 32;

/**
 * claimNext's claim: one free ready item of the scope, leaving out `passed`,
 * claimed for the session in one statement with its ready row's expiry.
 * Taken by place in the list before task (every task's first ready item,
 * then every task's next), so agents taking items one after another land on
 * different tasks and do not queue on one task's history; dependency order
 * holds because only ready items have rows. `preferTask`'s items come first
 * (a task whose locks this write holds already).
 *
 * On PostgreSQL the claim records the task's list in its history, so it
 * needs the task's history lock (history-rows.ts). `wait: false` looks at
 * the first CANDIDATES free ready items in order and takes the first whose
 * task's history lock is free, taking that lock only if free and then the
 * ready row and the item's row FOR UPDATE SKIP LOCKED: a candidate that is
 * busy is passed over without being locked, so other callers can still take
 * it, and `busy` tells that from nothing ready. `wait: true` locks the first
 * free ready row (SKIP LOCKED) and then waits for its task's history lock:
 * only for a write that holds no other task's locks (waiting while holding
 * one could close a cycle with a writer doing the same the other way round).
 * Either way an item a write holds (a late DONE being fenced) is passed
 * over until that write ends, as the fence expects (claim-fence.ts), and the
 * claim is stamped after the lock is held. On SQLite the write lock runs one
 * writer at a time: the candidate is read, then claimed (takeClaim).
 */
export async function claimReadyItem(
  manager: EntityManager,
  claim: { domain: string; passed: readonly number[]; sessionId: string; owner: string | null; ttlSeconds: number; preferTask: number | null; wait: boolean },
): Promise<ReadyClaim> {
  const kind = kindOf(manager);
  const { where, scope } = readyScope(claim.domain);
  const skip = claim.passed.length ? ` AND r."itemId" NOT IN (${placeholders(claim.passed.length)})` : '';
  const prefer = claim.preferTask === null ? [] : [claim.preferTask];
  const order = `${claim.preferTask === null ? '' : 'CASE WHEN r."taskId" = ? THEN 0 ELSE 1 END, '}r."position" ASC, r."taskId" ASC, r."itemId" ASC`;
  const itemOpen = `i."deleted" = ? AND i."state" IN ('PENDING', 'IN_PROGRESS')`;
  // The live claims the session and its owner hold (liveClaimCount, liveClaimCountOfOwner; none for no owner), for the
  // caps: read with the claim, as they were before it, not in round trips of their own.
  const held = `(SELECT COUNT(*) FROM "claims" x WHERE x."sessionId" = ? AND ${claimIsLive('x', kind)}),
    (SELECT COUNT(*) FROM "claims" y WHERE y."owner" = CAST(? AS VARCHAR(64)) AND ${claimIsLive('y', kind)})`;
  const heldParameters = [claim.sessionId, claim.owner];
  if (kind !== 'postgres') {
    const sql = `SELECT ${itemColumns('i')}, r."domain", ${held} FROM "ready_items" r INNER JOIN "items" i ON i."id" = r."itemId"
      WHERE ${where} AND ${readyRowIsFree(kind)} AND ${itemOpen}${skip} ORDER BY ${order} LIMIT 1`;
    const [row] = await selectRows(manager, sql, [...heldParameters, ...scope, false, ...claim.passed, ...prefer]);
    if (!row) return { ready: null, stamps: null, busy: false };
    const ready = { item: itemOf(row), domain: row[ITEM_WIDTH] as string | null, sessionClaims: num(row[ITEM_WIDTH + 1]), ownerClaims: num(row[ITEM_WIDTH + 2]) };
    const stamps = await takeClaim(manager, { itemId: ready.item.id, taskId: ready.item.taskId, sessionId: claim.sessionId, owner: claim.owner }, claim.ttlSeconds);
    return { ready, stamps, busy: false };
  }
  let chosen: string;
  let chosenParameters: unknown[];
  if (claim.wait) {
    chosen = `k AS (SELECT ${itemColumns('i')}, r."domain" FROM "ready_items" r INNER JOIN "items" i ON i."id" = r."itemId"
        WHERE ${where} AND ${readyRowIsFree(kind)} AND ${itemOpen}${skip} ORDER BY ${order} LIMIT 1 FOR UPDATE OF r, i SKIP LOCKED),
      t AS (SELECT clock_timestamp() AS "clock" FROM k CROSS JOIN LATERAL (SELECT ${holdTaskHistorySql('k."taskId"')}) h)`;
    chosenParameters = [...scope, false, ...claim.passed, ...prefer];
  } else {
    // The candidates are read unlocked, in order (o, a fence the planner keeps: its LIMIT), and each is tried in turn
    // (the LATERAL, run once per candidate until one row comes out): the task's lock if free, evaluated on the joined
    // row before FOR UPDATE locks it, so a busy task's row is never locked; then the rows, skipping those locked.
    chosen = `o AS (SELECT r."itemId", r."taskId" FROM "ready_items" r WHERE ${where} AND ${readyRowIsFree(kind)}${skip} ORDER BY ${order} LIMIT ${CANDIDATES}),
      k AS (SELECT l.* FROM o CROSS JOIN LATERAL (SELECT ${itemColumns('i')}, r."domain" FROM "ready_items" r INNER JOIN "items" i ON i."id" = r."itemId"
          WHERE r."itemId" = o."itemId" AND ${readyRowIsFree(kind)} AND ${itemOpen} AND ${tryTaskHistorySql('o."taskId"')}
          FOR UPDATE OF r, i SKIP LOCKED) l LIMIT 1),
      t AS (SELECT clock_timestamp() AS "clock" FROM k)`;
    chosenParameters = [...scope, ...claim.passed, ...prefer, false];
  }
  const busy = claim.wait ? 'FALSE' : '(SELECT COUNT(*) FROM o) > 0';
  const [row] = await selectRows(manager, `WITH ${chosen},
      c AS (${claimUpsert(kind, 'k."id"', 'k."taskId"', 'k, t')}),
      u AS (UPDATE "ready_items" SET "claimedUntil" = c."expiresAt" FROM c WHERE "ready_items"."itemId" = c."itemId" RETURNING 1)
    SELECT ${itemColumns('k')}, k."domain", ${held}, c."claimedAt", c."expiresAt", ${busy}
    FROM (SELECT 1 AS "one") one LEFT JOIN k ON 1 = 1 LEFT JOIN c ON c."itemId" = k."id"`,
  [...chosenParameters, claim.sessionId, claim.ttlSeconds, claim.owner, ...heldParameters]);
  if (row[0] === null) return { ready: null, stamps: null, busy: row[ITEM_WIDTH + 5] === true };
  const ready = { item: itemOf(row), domain: row[ITEM_WIDTH] as string | null, sessionClaims: num(row[ITEM_WIDTH + 1]), ownerClaims: num(row[ITEM_WIDTH + 2]) };
  const stamps = row[ITEM_WIDTH + 3] === null ? null : { claimedAt: row[ITEM_WIDTH + 3] as string, expiresAt: row[ITEM_WIDTH + 4] as string };
  return { ready, stamps, busy: false };
}
