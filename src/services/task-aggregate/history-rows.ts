import type { EntityManager } from 'typeorm';
import type { HistoryAction } from '../../domain/history.js';
import { CHAIN_LENGTH_MAX, chainLimits, deltaBetween } from '../../domain/list-delta.js';
import type { ItemChange, Snapshot } from '../../domain/list-diff.js';
import { selectRows, runStatement, type Statement } from '../kernel/statements.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';

/**
 * History rows as written: what changed, and the list after it as a delta
 * from the event before (domain/list-delta.ts), or whole at a checkpoint.
 * Which one is decided in the insert itself from the task's previous row, so
 * a history row still costs one statement.
 *
 * A delta is only right if the list it starts from is the previous row's.
 * Every change of a list loads its task locked (loadTaskForChange), so
 * changes of one task write their rows one after another. claimNext is the
 * one writer that records a task's list without that lock (it locks the item
 * it chose): on PostgreSQL it takes this task's history lock
 * (holdTaskHistory) before it reads the list, and every insert takes the
 * same lock, so it never records a list that misses a change whose row is
 * already in. SQLite's write lock runs one writer at a time.
 */

/**
 * What a write knows of the list its task's latest history row holds: the
 * live list as it loaded the task (`before`), or, once the write has itself
 * written a row, that row's list (`recorded`). A new row's delta starts
 * from it.
 */
export interface HistoryTip {
  before: Snapshot[];
  recorded?: Snapshot[];
}

/** The list the task's latest history row holds, as far as this write knows. */
export function latestRecorded(tip: HistoryTip): Snapshot[] {
  return tip.recorded ?? tip.before;
}

/** The first key of the history locks (pg_advisory_xact_lock's two-key form; the second is the task's id): "tbev" in ASCII. */
const HISTORY_LOCK_CLASS = 0x74626576;

/**
 * Writes a task's history row, stamped now and with the calling session:
 * `changes`, and the list after (`after`) as a delta from `before` (the
 * list the task's previous row holds) or whole, as continueChain decides.
 * Not read back: nothing needs its id.
 */
export async function insertTaskEvent(
  uow: UnitOfWork,
  taskId: number,
  action: HistoryAction,
  before: readonly Snapshot[],
  after: readonly Snapshot[],
  changes: readonly ItemChange[],
  /**
   * The last write of its unit of work, the task's history lock already held (claimNext's claim): sent with the
   * change-log append (UnitOfWork.writeLast), as nothing after it reads the task's history.
   */
  { last = false }: { last?: boolean } = {},
): Promise<void> {
  const statement = await taskEventStatement(uow, taskId, action, before, after, changes);
  if (last) uow.writeLast(statement);
  else await runStatement(uow.manager, statement.sql, statement.parameters);
}

/**
 * insertTaskEvent's statement, not sent: for a write that sends it inside a
 * statement of its own (recordTaskChange on PostgreSQL, as a common table
 * expression). The rows held for the end (UnitOfWork.writeLast) are sent
 * first: this row continues the chain from the task's previous one.
 */
export async function taskEventStatement(
  uow: UnitOfWork, taskId: number, action: HistoryAction, before: readonly Snapshot[], after: readonly Snapshot[], changes: readonly ItemChange[],
  /**
   * PostgreSQL: an integer expression over writes of the same statement that must be done before the history lock is
   * taken (the ready rows' writes, ReadyRefresh.written). The lock's key is computed from it, so it runs after them
   * whatever order the executor runs the statement's parts in.
   */
  { lockAfter }: { lockAfter?: string } = {},
): Promise<Statement> {
  await uow.flushLastWrites();
  const delta = JSON.stringify(deltaBetween(before, after));
  const whole = JSON.stringify(after);
  const { weight, priorBytesMax } = chainLimits(Buffer.byteLength(delta), Buffer.byteLength(whole));
  const postgres = uow.manager.connection.options.type === 'postgres';
  return {
    sql: postgres ? insertLocked(lockAfter) : INSERT,
    parameters: [taskId, uow.now, action, await uow.knownSessionId(), JSON.stringify(changes), weight, delta, whole, CHAIN_LENGTH_MAX, priorBytesMax, taskId, ...(postgres ? [taskId] : [])],
  };
}

/**
 * The insert: the task's previous row (none for its first event) says
 * whether this one continues the chain, as continueChain would (shorter than
 * CHAIN_LENGTH_MAX, and no heavier than the list less this delta's weight),
 * and the row gets the delta or the whole list accordingly. Parameters are
 * cast, so PostgreSQL types them as the columns are.
 */
const INSERT = 'INSERT INTO "task_events" ("taskId", "at", "action", "sessionId", "changes", "chainLength", "chainBytes", "items") ' +
  'SELECT CAST(? AS INTEGER), CAST(? AS VARCHAR(24)), CAST(? AS VARCHAR(32)), CAST(? AS VARCHAR(64)), CAST(? AS TEXT), ' +
  'CASE WHEN c."continues" = 1 THEN c."length" + 1 ELSE 0 END, CASE WHEN c."continues" = 1 THEN c."bytes" + CAST(? AS INTEGER) ELSE 0 END, ' +
  'CASE WHEN c."continues" = 1 THEN CAST(? AS TEXT) ELSE CAST(? AS TEXT) END ' +
  'FROM (SELECT CASE WHEN p."chainLength" < CAST(? AS INTEGER) AND p."chainBytes" <= CAST(? AS INTEGER) THEN 1 ELSE 0 END AS "continues", ' +
  'p."chainLength" AS "length", p."chainBytes" AS "bytes" FROM (SELECT 1 AS "one") o LEFT JOIN ' +
  '(SELECT l."chainLength", l."chainBytes" FROM "task_events" l WHERE l."taskId" = CAST(? AS INTEGER) ORDER BY l."id" DESC LIMIT 1) p ON 1 = 1) c';

/** PostgreSQL's insert also takes the task's history lock, joined in as a one-row sub-select, before its row (and id) exists. */
const insertLocked = (after?: string) =>
  `${INSERT}, (SELECT pg_advisory_xact_lock(${HISTORY_LOCK_CLASS}, CAST(? AS INTEGER)${after ? ` + 0 * CAST((${after}) AS INTEGER)` : ''})) h`;

/**
 * Waits until no other transaction has written this task's history and not
 * yet committed, and keeps others from writing it until this one ends: for a
 * writer that reads a task's list without locking the task (PostgreSQL; on
 * SQLite the write lock already does it).
 */
export async function holdTaskHistory(manager: EntityManager, taskId: number): Promise<void> {
  if (manager.connection.options.type !== 'postgres') return;
  await selectRows(manager, `SELECT ${HOLD_TASK_HISTORY}`, [taskId]);
}

/** holdTaskHistory as an expression (PostgreSQL) on `task` (SQL for the task's id): for a statement that takes the lock before its own work. */
export function holdTaskHistorySql(task: string): string {
  return `pg_advisory_xact_lock(${HISTORY_LOCK_CLASS}, CAST(${task} AS INTEGER))`;
}

/** holdTaskHistorySql without waiting: true when the lock is now held (or was already, by this transaction), false when another holds it. */
export function tryTaskHistorySql(task: string): string {
  return `pg_try_advisory_xact_lock(${HISTORY_LOCK_CLASS}, CAST(${task} AS INTEGER))`;
}

/** holdTaskHistorySql with the task's id as its one parameter. */
export const HOLD_TASK_HISTORY = holdTaskHistorySql('?');
