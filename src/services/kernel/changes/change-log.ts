import type { EntityManager } from 'typeorm';
import type { DatabaseKind } from '../../../db/data-source.js';
import type { Database } from '../../../db/database.js';
import { LoggedChangeEntity } from '../../../db/entities/index.js';
import { CHANGE_CHANNEL } from '../../../db/change-channel.js';
import type { ChangeAction, ChangeEntity } from '../../../domain/history.js';
import type { ChangeEvent } from './change-events.js';
import { loggedChangeColumns, loggedChangeRowOf } from '../entity-rows.js';
import { num, placeholders, runStatement, selectRows, tuples, type Statement } from '../statements.js';

/**
 * The change log's storage (table `changes`): appended to by every writer in
 * its own transaction, read by id by every server's change feed, pruned by
 * age and by rows.
 */

const LOGGED_COLUMNS = ['at', 'action', 'entity', 'entityId', 'kind', 'domain', 'taskId', 'itemId', 'sessionId', 'madeBy'] as const satisfies readonly (keyof LoggedChangeEntity)[];
const COLUMN_LIST = LOGGED_COLUMNS.map((column) => `"${column}"`).join(', ');
const INTEGER_COLUMNS = new Set<string>(['taskId', 'itemId']);

/**
 * Appends a unit of work's events, as the last writes of its transaction.
 *
 * No lock orders the appends. On SQLite the write lock (one writer at a
 * time, across processes) already makes ids follow commit order: the rows go
 * straight into the log. On PostgreSQL they go into the change queue, stamped
 * with the transaction's id, and readers move them into the log after they
 * commit (sequenceChanges). The NOTIFY beside the insert is
 * delivered at commit (never for a rollback) and carries only the writer's
 * `tag` (CommitSignal's): it wakes the listeners, which read the log by id,
 * and a listener in the writer's own process knows it already
 * (change-feed.ts). Answers the newest log id appended on SQLite; null on
 * PostgreSQL, where log ids are given as the queue is moved.
 */
export async function appendChanges(
  manager: EntityManager, kind: DatabaseKind, events: readonly ChangeEvent[], tag = '',
  /** Writes held for the end (UnitOfWork.writeLast): on PostgreSQL sent in the append's statement, each a common table expression before it. */
  before: readonly Statement[] = [],
): Promise<number | null> {
  if (events.length === 0 || kind !== 'postgres') {
    for (const { sql, parameters } of before) await runStatement(manager, sql, parameters);
  }
  if (events.length === 0) return null;
  const values = events.flatMap((event) => {
    const row = rowOf(event);
    return LOGGED_COLUMNS.map((column) => row[column] ?? null);
  });
  // Every write ends here, so the rows go in on a fixed statement per number of events, not a query builder's insert.
  if (kind === 'postgres') {
    // Data-modifying CTEs run to completion whether or not they are read, before the statement ends.
    const leading = before.length ? `WITH ${before.map(({ sql }, i) => `"w${i}" AS (${sql})`).join(', ')} ` : '';
    await runStatement(manager, `${leading}${queuedInsert(events.length)}`, [...before.flatMap(({ parameters }) => parameters), CHANGE_CHANNEL, tag, ...values]);
    return null;
  }
  const ids = await selectRows(manager, `INSERT INTO "changes" (${COLUMN_LIST}) VALUES ${tuples(events.length, placeholders(LOGGED_COLUMNS.length))} RETURNING "id"`, values);
  return Math.max(...ids.map(([id]) => num(id)));
}

/** PostgreSQL's append in one round trip: the NOTIFY is a one-row sub-select the queued rows are joined with. */
function queuedInsert(count: number): string {
  const typed = LOGGED_COLUMNS.map((column) => (INTEGER_COLUMNS.has(column) ? '?::integer' : '?::text')).join(', ');
  return `INSERT INTO "change_queue" (${COLUMN_LIST}) SELECT v.* FROM (SELECT pg_notify(?, ?)) l, (VALUES ${tuples(count, typed)}) v`;
}

/** The advisory lock that only movers of the change queue take: "tbchange" in ASCII as hex (the migrations' is "taskbase"). */
const QUEUE_LOCK_KEY = '74626368616e6765';

/**
 * PostgreSQL: moves every committed change from the queue into the log, in
 * one statement of its own, so its lock is held for that statement alone
 * (whatever becomes of the process that sent it), and only when the queue
 * holds something. Movers take turns on that lock, so each move's log ids
 * are given, and become visible, after the move before it: a reader of the
 * log never sees a later id before an earlier one. A change still in flight
 * is not visible to the move; it is moved by one after its commit (which
 * NOTIFYs, so every server's feed moves and reads). A change committed
 * before a move began is in it, or in the one before it, so the log's order
 * is consistent with commits; within a move, one transaction's changes stay
 * together, in transaction order. A mover whose statement began before the
 * one ahead of it committed skips what that one moved (it is deleted).
 * Inside a transaction (a webhook's fill) it moves nothing: the lock would be
 * held to that transaction's end. SQLite has no queue.
 */
export async function sequenceChanges(manager: EntityManager): Promise<void> {
  if (!isPostgres(manager) || manager.queryRunner?.isTransactionActive) return;
  await runStatement(manager, `${SEQUENCE}) SELECT 1`, []);
}

/** The move as common table expressions; "given" (left open for its RETURNING) is the insert into the log. */
const SEQUENCE = `WITH "turn" AS MATERIALIZED (SELECT pg_advisory_xact_lock(x'${QUEUE_LOCK_KEY}'::bigint) FROM (SELECT 1 FROM "change_queue" LIMIT 1) "queued"),
  "moved" AS (DELETE FROM "change_queue" q USING "turn" RETURNING q.*),
  "given" AS (INSERT INTO "changes" (${COLUMN_LIST}) SELECT ${COLUMN_LIST} FROM "moved" ORDER BY "xid", "id"`;

const isPostgres = (manager: EntityManager): boolean => manager.connection.options.type === 'postgres';

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

/** Up to `limit` changes after log id `after`, oldest first, once the queue is moved into the log (sequenceChanges). */
export async function readChanges(manager: EntityManager, after: number, limit: number): Promise<ChangeEvent[]> {
  return (await loggedChangesAfter(manager, after, limit)).map(eventOf);
}

/**
 * Up to `limit` logged rows after log id `after`, oldest first (the change
 * feed's read for its subscriptions, a webhook's fill): one index range on
 * the key, once the queue is moved into the log. On PostgreSQL the move
 * (sequenceChanges) is a statement of its own and the read another: the
 * read's snapshot, taken after the move committed, also sees what a move it
 * waited for (another server's feed) gave. In one statement the read's
 * snapshot would predate that move's commit, and it would answer the ids its
 * own move gave past the other move's, which a feed going by id never reads
 * again: its subscriptions would miss them. A reader the feed wakes after
 * its own move (the webhook dispatcher) passes `move: false` and reads only
 * what was moved, without queueing for the move's lock: what is still
 * queued wakes it again once some server's feed moved it.
 */
export async function loggedChangesAfter(manager: EntityManager, after: number, limit: number, { move = true } = {}): Promise<LoggedChangeEntity[]> {
  if (move) await sequenceChanges(manager);
  const rows = await selectRows(manager, `SELECT ${loggedChangeColumns('c')} FROM "changes" c WHERE c."id" > ? ORDER BY c."id" ASC LIMIT ?`, [after, limit]);
  return rows.map((row) => loggedChangeRowOf(row));
}

/**
 * The newest log id (0 for an empty log), once the queue is moved into the
 * log: where a feed that starts now begins. On PostgreSQL the move and the
 * read are one statement (a feed reads this on every commit while no
 * subscription wants rows): the newest id it gave, or else the log's.
 * Unlike a read of rows (loggedChangesAfter), one statement is enough: an id
 * a move it waited for gave is below the one it answers, and stepping over
 * it skips only changes committed before anyone was owed them.
 */
export async function newestChangeId(manager: EntityManager): Promise<number> {
  const [[id]] = isPostgres(manager) && !manager.queryRunner?.isTransactionActive
    ? await selectRows(manager, `${SEQUENCE} RETURNING "id") SELECT GREATEST((SELECT MAX("id") FROM "given"), (SELECT MAX("id") FROM "changes"))`, [])
    : await selectRows(manager, `SELECT MAX("id") FROM "changes"`, []);
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
