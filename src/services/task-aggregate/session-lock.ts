import { SessionEntity } from '../../db/entities/index.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';

/**
 * Loads a session for change inside the unit of work, locked on PostgreSQL.
 * The one lock order of every write that touches a session and its plan is
 * session row first, then the plan's task row (loadTaskForChange takes the
 * session's lock before the task's when the task is a plan), so a plan write
 * and the dashboard steering the same plan queue instead of deadlocking.
 * FOR NO KEY UPDATE, not FOR UPDATE: rows that merely reference the session
 * (its domains, a helper's parentId) can still be inserted meanwhile.
 * SQLite's write lock already serialises every write.
 */
export async function lockSession(uow: UnitOfWork, id: string): Promise<SessionEntity | null> {
  const query = uow.manager.createQueryBuilder(SessionEntity, 's').where('s.id = :id', { id });
  if (uow.manager.connection.options.type === 'postgres') query.setLock('for_no_key_update');
  return query.getOne();
}
