import { withRuleDefaults, type PlanPreset, type PlanRules } from '../../domain/plan-rules.js';
import type { SessionEntity } from '../../db/entities/index.js';
import { bool, json, num, selectRows } from '../kernel/statements.js';
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
 * here, so it is a fixed statement mapped by sessionOf, not a query builder
 * and TypeORM's hydration.
 */
export async function lockSession(uow: UnitOfWork, id: string): Promise<SessionEntity | null> {
  const postgres = uow.manager.connection.options.type === 'postgres';
  const [row] = await selectRows(uow.manager, postgres ? `${SELECT_SESSION} FOR NO KEY UPDATE` : SELECT_SESSION, [id]);
  return row ? sessionOf(row) : null;
}

const SESSION = ['id', 'parentId', 'rules', 'planTaskId', 'planStanding', 'turn', 'finishedAt', 'lastRemindedAt', 'createdAt', 'name', 'preset', 'owner'] as const;
const SELECT_SESSION = `SELECT ${SESSION.map((name) => `s."${name}"`).join(', ')} FROM "sessions" s WHERE s."id" = ?`;

/** A session row (SESSION's order) as TypeORM hydrates it: rules parsed and given the defaults of rules added since it was stored. */
function sessionOf(row: readonly unknown[]): SessionEntity {
  const rules = json<PlanRules | null>(row[2]);
  return {
    id: row[0] as string,
    parentId: row[1] as string | null,
    rules: (rules ? withRuleDefaults(rules) : rules) as PlanRules,
    planTaskId: row[3] === null ? null : num(row[3]),
    planStanding: bool(row[4]),
    turn: num(row[5]),
    finishedAt: row[6] as string | null,
    lastRemindedAt: row[7] as string | null,
    createdAt: row[8] as string,
    name: row[9] as string | null,
    preset: row[10] as PlanPreset | null,
    owner: row[11] as string | null,
  };
}
