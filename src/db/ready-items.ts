import type { EntityManager } from 'typeorm';

/**
 * What makes an item ready, as the ready rows ("ready_items") hold it: a
 * live PENDING or IN_PROGRESS item of an open knowledge-base task (never a
 * plan's) whose every dependency is settled or deleted. The SELECT answers
 * each such item as the table's columns, its claim's expiry included;
 * `where` narrows the items (its parameters come first, then the two
 * `deleted` flags: readyParameters). `openAsWritten`: the caller writes the
 * task's state in the same statement (whose reads predate that write) and
 * its `where` already says the task is open as written; the state read is
 * not looked at.
 */
export function readySelect(where: string, { openAsWritten = false }: { openAsWritten?: boolean } = {}): string {
  return `SELECT i."id" AS "id", i."taskId" AS "taskId", m."domain" AS "domain", i."position" AS "position",
      (SELECT c."expiresAt" FROM "claims" c WHERE c."itemId" = i."id") AS "claimedUntil"
    FROM "items" i INNER JOIN "memories" m ON m."id" = i."taskId"
    WHERE ${where} AND m."kind" = 'TASK'${openAsWritten ? '' : ` AND m."taskState" = 'OPEN'`} AND m."sessionId" IS NULL
      AND i."deleted" = ? AND i."state" IN ('PENDING', 'IN_PROGRESS')
      AND NOT EXISTS (SELECT 1 FROM "item_dependencies" d INNER JOIN "items" x ON x."id" = d."dependsOnId"
        WHERE d."itemId" = i."id" AND x."deleted" = ? AND x."state" NOT IN ('DONE', 'DROPPED'))`;
}

/** readySelect's parameters after those of its `where`. */
export const READY_FLAGS = [false, false] as const;

/**
 * Rebuilds every ready row from the items: for a change that reaches many
 * tasks at once outside a task write (task states re-derived on open).
 */
export async function rebuildReadyItems(manager: EntityManager): Promise<void> {
  await manager.query(`DELETE FROM "ready_items"`);
  await manager.query(`INSERT INTO "ready_items" ("itemId", "taskId", "domain", "position", "claimedUntil")
    SELECT r."id", r."taskId", r."domain", r."position", r."claimedUntil" FROM (${readySelect('1 = 1').replaceAll('= ?', '= false')}) r
    WHERE 1 = 1 ON CONFLICT ("itemId") DO NOTHING`);
}
