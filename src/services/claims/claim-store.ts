import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { dbNowSql, kindOf } from '../../db/db-clock.js';
import { ClaimEntity, ItemEntity, MemoryEntity, TaskEventEntity } from '../../db/entities/index.js';
import type { HistoryAction } from '../../domain/history.js';
import type { ItemChange } from '../../domain/list-diff.js';
import { scopeCondition } from '../kernel/domain-scope.js';
import { claimColumns, claimOf } from '../kernel/entity-rows.js';
import { distinct, placeholders, runStatement, selectRows } from '../kernel/statements.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import { snapshotOf } from '../task-aggregate/task-store.js';

/**
 * Claims as rows, and the ready queue. Every "is it claimed" compares the
 * row's expiry with the database's clock in SQL, so an expired row is no
 * claim wherever it is read, and nothing ever has to clean one up.
 */

/** The live claims on these items (at most one each). */
export async function liveClaimsOf(manager: EntityManager, itemIds: readonly number[]): Promise<ClaimEntity[]> {
  if (itemIds.length === 0) return [];
  const sql = `SELECT ${claimColumns('c')} FROM "claims" c WHERE c."itemId" IN (${placeholders(itemIds.length)}) AND c."expiresAt" > ${dbNowSql(kindOf(manager))}`;
  return (await selectRows(manager, sql, itemIds)).map((row) => claimOf(row));
}

/** How many live claims a session holds. */
export async function liveClaimCount(manager: EntityManager, sessionId: string): Promise<number> {
  return manager.createQueryBuilder(ClaimEntity, 'c')
    .where('c."sessionId" = :sessionId', { sessionId })
    .andWhere(`c."expiresAt" > ${dbNowSql(kindOf(manager))}`)
    .getCount();
}

/**
 * Takes the claim row for `sessionId` when no live claim holds it: a new row,
 * or an expired one taken over, in one statement (the WHERE of ON CONFLICT
 * is checked on the row as committed, so of two takers only one gets it).
 * False when another session's live claim holds the item.
 */
export async function takeClaim(
  manager: EntityManager,
  claim: Pick<ClaimEntity, 'itemId' | 'taskId' | 'sessionId' | 'claimedAt' | 'expiresAt'>,
): Promise<boolean> {
  const kind = kindOf(manager);
  const marks = kind === 'postgres' ? ['$1', '$2', '$3', '$4', '$5'] : ['?', '?', '?', '?', '?'];
  const rows = (await manager.query(
    `INSERT INTO "claims" ("itemId", "taskId", "sessionId", "claimedAt", "expiresAt") VALUES (${marks.join(', ')})
     ON CONFLICT ("itemId") DO UPDATE SET "taskId" = excluded."taskId", "sessionId" = excluded."sessionId",
       "claimedAt" = excluded."claimedAt", "expiresAt" = excluded."expiresAt"
     WHERE "claims"."expiresAt" <= ${dbNowSql(kind)}
     RETURNING "itemId"`,
    [claim.itemId, claim.taskId, claim.sessionId, claim.claimedAt, claim.expiresAt],
  )) as unknown[];
  return rows.length > 0;
}

/** Ends the claims on these items (settled or deleted work): no history of its own, the change that ended it has one. */
export async function endClaimsOnItems(manager: EntityManager, itemIds: readonly number[]): Promise<void> {
  if (itemIds.length === 0) return;
  const ids = distinct(itemIds);
  await runStatement(manager, `DELETE FROM "claims" WHERE "itemId" IN (${placeholders(ids.length)})`, ids);
}

/** Ends every claim of a session (it finished). */
export async function endClaimsOfSession(manager: EntityManager, sessionId: string): Promise<void> {
  await runStatement(manager, `DELETE FROM "claims" WHERE "sessionId" = ?`, [sessionId]);
}

/**
 * Records a claim taken or released in the task's history (the list as it
 * stands, and the claim as the change: from/to the holding session) and in
 * the change log. The task's version is left alone: a claim changes no
 * item, so it must not make another agent's expectedVersion stale.
 */
export async function recordClaim(
  uow: UnitOfWork,
  task: Pick<MemoryEntity, 'id' | 'domain'>,
  items: readonly ItemEntity[],
  action: HistoryAction,
  change: ItemChange,
): Promise<void> {
  await uow.manager.insert(TaskEventEntity, {
    taskId: task.id, at: uow.now, action, sessionId: await uow.knownSessionId(), items: snapshotOf(items), changes: [change],
  });
  uow.emit({
    entity: 'TASK', id: String(task.id), action, memory: { kind: 'TASK', domain: task.domain },
    about: { itemId: change.itemId, sessionId: change.to ?? change.from },
  });
}

/**
 * The ready queue of a domain (and those under it): live PENDING or
 * IN_PROGRESS items of open knowledge-base tasks (never a plan's, never an
 * archived task's), with no live claim, whose every dependency is settled or
 * deleted; oldest task first, then list order.
 */
export function readyQuery(manager: EntityManager, domain: string): SelectQueryBuilder<ItemEntity> {
  const now = dbNowSql(kindOf(manager));
  const params: Record<string, string> = {};
  const bind = (value: string) => {
    const name = `scope${Object.keys(params).length}`;
    params[name] = value;
    return `:${name}`;
  };
  return manager.createQueryBuilder(ItemEntity, 'i')
    .innerJoin(MemoryEntity, 'm', 'm."id" = i."taskId"')
    .where(`m."taskState" = 'OPEN' AND m."kind" = 'TASK' AND m."sessionId" IS NULL`)
    .andWhere(scopeCondition('m."domain"', domain, bind), params)
    .andWhere(`i."deleted" = :deleted AND i."state" IN ('PENDING', 'IN_PROGRESS')`, { deleted: false })
    .andWhere(`NOT EXISTS (SELECT 1 FROM "claims" c WHERE c."itemId" = i."id" AND c."expiresAt" > ${now})`)
    .andWhere(`NOT EXISTS (SELECT 1 FROM "item_dependencies" d INNER JOIN "items" x ON x."id" = d."dependsOnId"
      WHERE d."itemId" = i."id" AND x."deleted" = :deleted AND x."state" NOT IN ('DONE', 'DROPPED'))`)
    .orderBy('m."id"', 'ASC')
    .addOrderBy('i."position"', 'ASC');
}
