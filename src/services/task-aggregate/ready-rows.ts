import type { EntityManager } from 'typeorm';
import { READY_FLAGS, readySelect } from '../../db/ready-items.js';
import { distinct, placeholders, runStatement, type Statement } from '../kernel/statements.js';

/**
 * The ready queue as rows (table "ready_items"): one per ready item (as
 * db/ready-items.ts says it), with its task, the task's domain,
 * its place in the list, and the expiry of the claim on it ("claimedUntil",
 * null when never claimed). Whether it is free is not stored: readers compare
 * claimedUntil with the database's clock, so a lapsed claim makes its item
 * claimable again with no sweeper.
 *
 * Everything readiness depends on is one task's: an item's state, the task's
 * state and domain, and its dependency edges, which only join items of the
 * same task (domain/briefs.ts). Every change of those is a task write that
 * holds the task's row lock and ends in recordTaskChange, which refreshes the
 * task's rows here; so refreshes of one task run one after another, each
 * seeing the last one's commit. Claims change only claimedUntil
 * (markClaimedUntil), under the row's own lock.
 */

/**
 * Brings these tasks' ready rows in line with their items, in the write's
 * transaction (the task's row locked): drops the rows of items no longer
 * ready, adds the newly ready, and moves rows whose place or domain changed.
 * Rows that stay as they were are not written, so a claimNext on PostgreSQL,
 * which skips locked rows, never passes over a ready item because another
 * item of its task was written.
 */
export async function refreshReadyItems(manager: EntityManager, taskIds: readonly number[]): Promise<void> {
  if (taskIds.length === 0) return;
  const tasks = distinct(taskIds);
  const n = tasks.length;
  if (manager.connection.options.type === 'postgres') {
    const refresh = refreshExpressions(`i."taskId" IN (${placeholders(n)})`, tasks, tasks);
    await runStatement(manager, `WITH ${refresh.sql} SELECT 1`, refresh.parameters);
    return;
  }
  const ready = readySelect(`i."taskId" IN (${placeholders(n)})`);
  const readyParameters = [...tasks, ...READY_FLAGS];
  await runStatement(manager, `DELETE FROM "ready_items" WHERE "taskId" IN (${placeholders(n)})
    AND "itemId" NOT IN (SELECT r."id" FROM (${ready}) r)`, [...tasks, ...readyParameters]);
  await runStatement(manager, `INSERT INTO "ready_items" ("itemId", "taskId", "domain", "position", "claimedUntil")
    SELECT r."id", r."taskId", r."domain", r."position", r."claimedUntil" FROM (${ready}) r
    WHERE NOT EXISTS (SELECT 1 FROM "ready_items" o WHERE o."itemId" = r."id")
    ON CONFLICT ("itemId") DO NOTHING`, readyParameters);
  await runStatement(manager, `UPDATE "ready_items" SET
      "position" = (SELECT i."position" FROM "items" i WHERE i."id" = "ready_items"."itemId"),
      "domain" = (SELECT m."domain" FROM "memories" m WHERE m."id" = "ready_items"."taskId")
    WHERE "taskId" IN (${placeholders(n)}) AND (
      "position" <> (SELECT i."position" FROM "items" i WHERE i."id" = "ready_items"."itemId")
      OR COALESCE("domain", '') <> COALESCE((SELECT m."domain" FROM "memories" m WHERE m."id" = "ready_items"."taskId"), ''))`, tasks);
}

/**
 * PostgreSQL: one task's refresh as common table expressions, for the
 * statement that writes the task's own row (recordTaskChange), one round
 * trip for both. That statement's reads predate its write of the task's
 * state, so the state as written is given (`open`), not read: a task that
 * is not open has no ready items.
 */
export function refreshAsWritten(taskId: number, open: boolean): ReadyRefresh {
  return refreshExpressions(open ? `i."taskId" = ?` : '1 = 0', open ? [taskId] : [], [taskId], { openAsWritten: true });
}

/** The refresh as common table expressions, and an integer expression read once all three writes are done. */
export interface ReadyRefresh extends Statement {
  /**
   * Counts the rows of all three writes: a later part of the same statement
   * that computes something from it (the history lock's key, taskEventStatement)
   * runs after every row lock the refresh takes. PostgreSQL runs a statement's
   * unread data-modifying expressions in an order of its own: with the history
   * lock first, a claim holding a ready row this write deletes, and waiting for
   * that lock, deadlocked with it.
   */
  written: string;
}

/**
 * PostgreSQL's refresh as common table expressions over one reading of the
 * tasks' items (`ready`, narrowed by `where`): the same three writes, each
 * on rows the others do not touch (gone: rows not ready; added: ready items
 * without a row; moved: ready items with one whose place or domain changed).
 */
function refreshExpressions(where: string, whereParameters: readonly unknown[], tasks: readonly number[], options: { openAsWritten?: boolean } = {}): ReadyRefresh {
  return {
    written: '(SELECT COUNT(*) FROM "gone") + (SELECT COUNT(*) FROM "added") + (SELECT COUNT(*) FROM "moved")',
    sql: `"ready" AS (${readySelect(where, options)}),
      "gone" AS (DELETE FROM "ready_items" o WHERE o."taskId" IN (${placeholders(tasks.length)}) AND o."itemId" NOT IN (SELECT "id" FROM "ready") RETURNING 1),
      "added" AS (INSERT INTO "ready_items" ("itemId", "taskId", "domain", "position", "claimedUntil")
        SELECT r."id", r."taskId", r."domain", r."position", r."claimedUntil" FROM "ready" r
        WHERE NOT EXISTS (SELECT 1 FROM "ready_items" o WHERE o."itemId" = r."id") ON CONFLICT ("itemId") DO NOTHING RETURNING 1),
      "moved" AS (UPDATE "ready_items" o SET "position" = r."position", "domain" = r."domain" FROM "ready" r
        WHERE o."itemId" = r."id" AND (o."position" <> r."position" OR o."domain" IS DISTINCT FROM r."domain") RETURNING 1)`,
    parameters: [...whereParameters, ...READY_FLAGS, ...tasks],
  };
}

/**
 * Sets the claim expiry the ready rows of these items carry (`until`: SQL
 * for the time, such as the claims row's own expiry or the database's
 * clock): what every write of a claim row does beside it.
 */
export async function markClaimedUntil(manager: EntityManager, itemIds: readonly number[], until: string, parameters: readonly unknown[] = []): Promise<void> {
  if (itemIds.length === 0) return;
  const ids = distinct(itemIds);
  await runStatement(manager, `UPDATE "ready_items" SET "claimedUntil" = ${until} WHERE "itemId" IN (${placeholders(ids.length)})`, [...parameters, ...ids]);
}
