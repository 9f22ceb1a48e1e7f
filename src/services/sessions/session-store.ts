import type { EntityManager } from 'typeorm';
import { noSession } from '../../domain/plan-steps.js';
import { SessionEntity, TaskEventEntity } from '../../db/entities/index.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';

/** The action of the history row clearPlan writes; a plan whose latest row is this one is shown as no plan. */
export const PLAN_CLEARED = 'PLAN_CLEARED';

/**
 * Loads the calling session (x-session-id) for change inside the unit of
 * work: locked FOR UPDATE on PostgreSQL, so two calls of one session (say,
 * two first plan writes) queue instead of both creating a plan; SQLite's
 * write lock already serialises them. NO_SESSION without a header or when it
 * names no started session, with the to-do tool's exact message.
 */
export async function loadCallingSession(uow: UnitOfWork): Promise<SessionEntity> {
  const id = uow.caller.sessionId;
  if (!id) throw noSession();
  const query = uow.manager.createQueryBuilder(SessionEntity, 's').where('s.id = :id', { id });
  if (uow.manager.connection.options.type === 'postgres') query.setLock('pessimistic_write');
  const session = await query.getOne();
  if (!session) throw noSession();
  return session;
}

/** History rows that change no step: a comment or note on the plan does not bring a cleared plan back. */
const NOT_THE_LIST = ['TASK_EDITED', 'COMMENT_ADDED', 'NOTE_ADDED', 'NOTE_EDITED', 'NOTE_DELETED', 'ITEM_LINKED'];

/**
 * Of these plan tasks, the ones cleared by clearPlan: their latest history row
 * that changed the list is PLAN_CLEARED. A session keeps one plan task for life (so its history
 * reads as one chat), and "no plan after clearPlan" is derived from that row
 * rather than stored twice. One statement for any number of tasks.
 */
export async function clearedPlanIds(manager: EntityManager, taskIds: readonly number[]): Promise<Set<number>> {
  if (taskIds.length === 0) return new Set();
  const latest = manager
    .createQueryBuilder(TaskEventEntity, 'l')
    .select('MAX(l.id)')
    .where('l.taskId IN (:...taskIds)')
    .andWhere('l.action NOT IN (:...notTheList)')
    .groupBy('l.taskId');
  const rows = await manager
    .createQueryBuilder(TaskEventEntity, 'e')
    .select('e.taskId', 'taskId')
    .where(`e.id IN (${latest.getQuery()})`)
    .andWhere('e.action = :cleared', { cleared: PLAN_CLEARED })
    .setParameter('taskIds', [...taskIds])
    .setParameter('notTheList', NOT_THE_LIST)
    .getRawMany<{ taskId: number | string }>();
  return new Set(rows.map((row) => Number(row.taskId)));
}
