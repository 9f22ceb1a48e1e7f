import { LIST_ACTIONS, type HistoryAction } from '../../domain/history.js';
import type { EntityManager } from 'typeorm';
import { noSession } from '../../domain/plan-steps.js';
import { sessionIdOf } from '../../domain/session-ids.js';
import { SessionEntity, SessionNameWordEntity } from '../../db/entities/index.js';
import { nameWords } from '../../domain/session-names.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import { lockSession, updateSessionRow } from '../task-aggregate/session-lock.js';
import { num, placeholders, selectRows } from '../kernel/statements.js';

/**
 * Gives a session its name and the words a search finds it by
 * (session_name_words), in the caller's unit of work. A name is written
 * once: when the session starts (given, or its client's), else from the
 * first step of its first plan, so what the list shows is what it finds.
 */
export async function storeSessionName(uow: UnitOfWork, session: SessionEntity, name: string): Promise<void> {
  session.name = name;
  await updateSessionRow(uow, session.id, { name });
  const words = nameWords(name);
  if (words.length) await uow.manager.insert(SessionNameWordEntity, words.map((word) => ({ word, sessionId: session.id })));
}

/**
 * Loads the calling session (x-session-id) for change, locked (lockSession),
 * so two calls of one session (say, two first plan writes) queue instead of
 * both creating a plan. NO_SESSION without a header or when it names no
 * started session, with the to-do tool's exact message (run such calls with
 * the Writer's asSession, which refuses the same before any work; a session
 * of another bearer token never gets here: the Writer refuses it with FORBIDDEN).
 */
export async function loadCallingSession(uow: UnitOfWork): Promise<SessionEntity> {
  const id = sessionIdOf(uow.caller.sessionId);
  if (!id) throw noSession();
  const session = await lockSession(uow, id);
  if (!session) throw noSession();
  return session;
}

/**
 * Of these plan tasks, the ones cleared by clearPlan: their latest history row
 * that changed the list (domain/history.ts LIST_ACTIONS: a comment, note or link on the plan does
 * not bring a cleared plan back) is PLAN_CLEARED. A session keeps one plan task for life (so its history
 * reads as one chat), and "no plan after clearPlan" is derived from that row
 * rather than stored twice. One statement for any number of tasks.
 */
async function clearedPlanIds(manager: EntityManager, taskIds: readonly number[]): Promise<Set<number>> {
  if (taskIds.length === 0) return new Set();
  const sql = `SELECT e."taskId" FROM "task_events" e WHERE e."id" IN (SELECT MAX(l."id") FROM "task_events" l`
    + ` WHERE l."taskId" IN (${placeholders(taskIds.length)}) AND l."action" IN (${placeholders(LIST_ACTIONS.length)}) GROUP BY l."taskId")`
    + ` AND e."action" = ?`;
  const rows = await selectRows(manager, sql, [...taskIds, ...LIST_ACTIONS, 'PLAN_CLEARED' satisfies HistoryAction]);
  return new Set(rows.map(([taskId]) => num(taskId)));
}

/**
 * The one rule for a session's current plan: its plan task, unless it was
 * never written or clearPlan cleared it and nothing was written since. For
 * each plan task id (null: never planned), that id, or null when there is no
 * current plan. One statement for any number of sessions.
 */
export async function currentPlanIds(manager: EntityManager, planTaskIds: readonly (number | null)[]): Promise<(number | null)[]> {
  const cleared = await clearedPlanIds(manager, planTaskIds.filter((id): id is number => id !== null));
  return planTaskIds.map((id) => (id === null || cleared.has(id) ? null : id));
}
