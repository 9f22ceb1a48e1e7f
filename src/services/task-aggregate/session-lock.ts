import type { EntityManager } from 'typeorm';
import type { SessionEntity } from '../../db/entities/index.js';
import { sessionColumns, sessionOf } from '../kernel/entity-rows.js';
import { runStatement, selectRows } from '../kernel/statements.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';

/**
 * Loads a session for change inside the unit of work, locked on PostgreSQL.
 * The one lock order of every write that touches a session and its plan is
 * session row first, then the plan's task row (loadTaskForChange takes the
 * session's lock before the task's when the task is a plan), so a plan write
 * and the dashboard steering the same plan queue instead of deadlocking.
 * FOR NO KEY UPDATE, not FOR UPDATE: rows that merely reference the session
 * (its domains, a helper's parentId) can still be inserted meanwhile.
 * SQLite's write lock already serialises every write. Every plan write starts
 * here, so it is a fixed statement mapped by sessionOf (kernel/entity-rows.ts), not a query builder
 * and TypeORM's hydration.
 */
export async function lockSession(uow: UnitOfWork, id: string): Promise<SessionEntity | null> {
  const postgres = uow.manager.connection.options.type === 'postgres';
  const [row] = await selectRows(uow.manager, postgres ? `${SELECT_SESSION} FOR NO KEY UPDATE` : SELECT_SESSION, [id]);
  return row ? sessionOf(row) : null;
}

/** A session read without a lock: what a write needs of a session it does not change (a plan's rules, once its task is locked). */
export async function readSession(manager: EntityManager, id: string): Promise<SessionEntity | null> {
  const [row] = await selectRows(manager, SELECT_SESSION, [id]);
  return row ? sessionOf(row) : null;
}

const SELECT_SESSION = `SELECT ${sessionColumns('s')} FROM "sessions" s WHERE s."id" = ?`;

const SESSION_SETTABLE = ['rules', 'planStanding', 'turn', 'finishedAt', 'name'] as const;
export type SessionRowChange = Partial<Pick<SessionEntity, (typeof SESSION_SETTABLE)[number]>>;

/**
 * Writes the columns a change sets (those not undefined) of one session, on
 * a fixed statement per set of columns: a new turn, a finish, new rules
 * (stored as JSON, as the entity's simple-json column is), a name.
 */
export async function updateSessionRow(uow: UnitOfWork, id: string, change: SessionRowChange): Promise<void> {
  const columns = SESSION_SETTABLE.filter((column) => change[column] !== undefined);
  if (columns.length === 0) return;
  const sql = `UPDATE "sessions" SET ${columns.map((column) => `"${column}" = ?`).join(', ')} WHERE "id" = ?`;
  await runStatement(uow.manager, sql, [...columns.map((column) => (column === 'rules' ? JSON.stringify(change.rules) : change[column])), id]);
}
