import type { EntityManager } from 'typeorm';
import type { DatabaseKind } from '../../db/data-source.js';
import type { Database } from '../../db/database.js';
import { LoggedChangeEntity } from '../../db/entities/index.js';
import { CHANGE_CHANNEL } from '../../db/change-channel.js';
import type { ChangeAction, ChangeEntity } from '../../domain/history.js';
import type { ChangeEvent } from './changes.js';
import { loggedChangeColumns, loggedChangeRowOf } from './entity-rows.js';
import { num, placeholders, selectRows, tuples } from './statements.js';

/**
 * The change log's storage (table `changes`): appended to by every writer in
 * its own transaction, read by id by every server's change feed, pruned by
 * age and by rows.
 */

/** The advisory lock PostgreSQL writers take to append: "tbchange" in ASCII as hex (the migrations' is "taskbase"). */
const LOG_LOCK_KEY = '74626368616e6765';

/**
 * Appends a unit of work's events, as the last writes of its transaction.
 *
 * On SQLite the write lock (one writer at a time, across processes) already
 * makes ids follow commit order. PostgreSQL hands out sequence ids when rows
 * are inserted, not when they commit, so a later id could become visible
 * before an earlier one and a reader that moved past it would never see the
 * earlier one. Appending under one transaction-scoped advisory lock prevents
 * that: the lock is released only once the holder's commit is visible, so
 * ids are visible in the order they were given. It is taken last, after every
 * row lock, and its holder only inserts and commits, so it cannot deadlock;
 * it serializes just the append and the commit. The NOTIFY beside it is
 * delivered at commit (never for a rollback) and carries only the writer's
 * `tag` (CommitSignal's): it wakes the listeners, which read the log by id,
 * and a listener in the writer's own process knows it already
 * (change-feed.ts). Answers the newest id appended (null for no events).
 */
export async function appendChanges(manager: EntityManager, kind: DatabaseKind, events: readonly ChangeEvent[], tag = ''): Promise<number | null> {
  if (events.length === 0) return null;
  const values = events.flatMap((event) => {
    const row = rowOf(event);
    return LOGGED_COLUMNS.map((column) => row[column] ?? null);
  });
  // Every write ends here, so the rows go in on a fixed statement per number of events, not a query builder's insert.
  const ids = kind === 'postgres'
    ? await selectRows(manager, lockedInsert(events.length), [CHANGE_CHANNEL, tag, ...values])
    : await selectRows(manager, `INSERT INTO "changes" (${COLUMN_LIST}) VALUES ${tuples(events.length, placeholders(LOGGED_COLUMNS.length))} RETURNING "id"`, values);
  return Math.max(...ids.map(([id]) => num(id)));
}

/**
 * PostgreSQL's append in one round trip: the lock and the NOTIFY are a one-row
 * sub-select the new rows are joined with, so no row (and no id: the sequence
 * is drawn as each row is inserted) exists before the lock is held. Two
 * statements cost a round trip more, made while holding the lock every writer
 * waits for (updateItem at --scale large, 32 connections: 16.8 ms of its
 * latency was that wait).
 */
function lockedInsert(count: number): string {
  const typed = LOGGED_COLUMNS.map((column) => (INTEGER_COLUMNS.has(column) ? '?::integer' : '?::text')).join(', ');
  return `INSERT INTO "changes" (${COLUMN_LIST}) SELECT v.* FROM (SELECT pg_advisory_xact_lock(x'${LOG_LOCK_KEY}'::bigint), pg_notify(?, ?)) l, (VALUES ${tuples(count, typed)}) v RETURNING "id"`;
}

const LOGGED_COLUMNS = ['at', 'action', 'entity', 'entityId', 'kind', 'domain', 'taskId', 'itemId', 'sessionId', 'madeBy'] as const satisfies readonly (keyof LoggedChangeEntity)[];
const COLUMN_LIST = LOGGED_COLUMNS.map((column) => `"${column}"`).join(', ');
const INTEGER_COLUMNS = new Set<string>(['taskId', 'itemId']);

const asId = (value: string | null | undefined): number | null => (value ? Number(value) : null);

/** The row an event is logged as: its entity, and the task, item and session it is about. */
function rowOf(event: ChangeEvent): Omit<LoggedChangeEntity, 'id'> {
  const about = event.about ?? {};
  return {
    at: event.at,
    action: event.action,
    entity: event.entity,
    entityId: event.id,
    kind: event.memory?.kind ?? null,
    domain: event.memory?.domain ?? null,
    taskId: event.entity === 'TASK' ? Number(event.id) : asId(about.taskId),
    itemId: asId(about.itemId),
    sessionId: event.entity === 'SESSION' ? event.id : about.sessionId ?? null,
    madeBy: event.madeBy,
  };
}

/** A logged row as the event the feed delivers, with its log id. */
function eventOf(row: LoggedChangeEntity): ChangeEvent {
  const event: ChangeEvent = {
    entity: row.entity as ChangeEntity,
    id: row.entityId,
    action: row.action as ChangeAction,
    madeBy: row.madeBy,
    at: row.at,
    about: {
      taskId: row.taskId === null ? null : String(row.taskId),
      itemId: row.itemId === null ? null : String(row.itemId),
      sessionId: row.sessionId,
    },
    logId: Number(row.id),
  };
  if (row.kind === 'TASK' || row.kind === 'NOTE') event.memory = { kind: row.kind, domain: row.domain };
  return event;
}

/** Up to `limit` changes after log id `after`, oldest first: one index range on the key. */
export async function readChanges(manager: EntityManager, after: number, limit: number): Promise<ChangeEvent[]> {
  return (await loggedChangesAfter(manager, after, limit)).map(eventOf);
}

/** Up to `limit` logged rows after log id `after`, oldest first (the change feed's poll, a webhook's fill). */
export async function loggedChangesAfter(manager: EntityManager, after: number, limit: number): Promise<LoggedChangeEntity[]> {
  const rows = await selectRows(manager, `SELECT ${loggedChangeColumns('c')} FROM "changes" c WHERE c."id" > ? ORDER BY c."id" ASC LIMIT ?`, [after, limit]);
  return rows.map((row) => loggedChangeRowOf(row));
}

/** The newest log id (0 for an empty log): where a feed that starts now begins. */
export async function newestChangeId(manager: EntityManager): Promise<number> {
  const [[id]] = await selectRows(manager, `SELECT MAX("id") FROM "changes"`, []);
  return id === null || id === undefined ? 0 : num(id);
}

/** How much of the log is kept: TASKBASE_CHANGE_LOG_DAYS and TASKBASE_CHANGE_LOG_ROWS. */
export interface ChangeLogRetention {
  days: number;
  rows: number;
}

/** Rows deleted per statement: each batch is its own short transaction, so writers wait for one batch at most. */
const PRUNE_BATCH = 1_000;

/**
 * Deletes what retention no longer keeps, oldest first, in batches: changes
 * older than `days`, then all but the newest `rows`. Age is read from the
 * oldest batch only (times follow ids closely), so a pass never scans the
 * whole log. Safe from several servers at once: a deleted row is deleted.
 */
export async function pruneChanges(db: Database, retention: ChangeLogRetention, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - retention.days * 86_400_000).toISOString();
  const drain = async (where: string, parameters: Record<string, unknown>): Promise<number> => {
    let total = 0;
    for (;;) {
      const result = await db.transaction((manager) => manager.createQueryBuilder().delete().from(LoggedChangeEntity)
        .where(`"id" IN (${where})`, { ...parameters, batch: PRUNE_BATCH }).execute());
      const n = result.affected ?? 0;
      total += n;
      if (n < PRUNE_BATCH) return total;
      // Writers (and on SQLite the other processes on the file) get their turn between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  let deleted = await drain(`SELECT "id" FROM (SELECT "id", "at" FROM "changes" ORDER BY "id" LIMIT :batch) "oldest" WHERE "at" < :cutoff`, { cutoff });
  const [beyond] = (await (await db.tail()).query(
    `SELECT "id" FROM "changes" ORDER BY "id" DESC LIMIT 1 OFFSET ${Math.trunc(retention.rows)}`,
  )) as { id: number | string }[];
  if (beyond) deleted += await drain(`SELECT "id" FROM "changes" WHERE "id" <= :last ORDER BY "id" LIMIT :batch`, { last: Number(beyond.id) });
  return deleted;
}
