import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ready queue as rows: one per item that is open work of an open
 * knowledge-base task and waits for nothing unsettled, kept by every task
 * write (task-aggregate/ready-rows.ts), with the expiry of its claim beside
 * it, so claimNext takes one with a single indexed `FOR UPDATE SKIP LOCKED`
 * statement instead of walking the tasks and their dependency edges per
 * call. Filled here from the items as they stand.
 */
export class ReadyItems1766100000000 implements MigrationInterface {
  name = 'ReadyItems1766100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE "ready_items" (
      "itemId" INTEGER PRIMARY KEY NOT NULL,
      "taskId" INTEGER NOT NULL,
      "domain" VARCHAR(400),
      "position" INTEGER NOT NULL,
      "claimedUntil" VARCHAR(24))`);
    // claimNext: a scope's items by place in their lists, so consecutive claims land on different tasks.
    await runner.query(`CREATE INDEX "idx_ready_items_spread" ON "ready_items" ("domain", "position", "taskId", "itemId")`);
    // ready (the listing) and each task write's refresh: a task's rows in list order.
    await runner.query(`CREATE INDEX "idx_ready_items_task" ON "ready_items" ("taskId", "position")`);
    await runner.query(`INSERT INTO "ready_items" ("itemId", "taskId", "domain", "position", "claimedUntil")
      SELECT i."id", i."taskId", m."domain", i."position", (SELECT c."expiresAt" FROM "claims" c WHERE c."itemId" = i."id")
      FROM "items" i INNER JOIN "memories" m ON m."id" = i."taskId"
      WHERE m."kind" = 'TASK' AND m."taskState" = 'OPEN' AND m."sessionId" IS NULL
        AND i."deleted" = false AND i."state" IN ('PENDING', 'IN_PROGRESS')
        AND NOT EXISTS (SELECT 1 FROM "item_dependencies" d INNER JOIN "items" x ON x."id" = d."dependsOnId"
          WHERE d."itemId" = i."id" AND x."deleted" = false AND x."state" NOT IN ('DONE', 'DROPPED'))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "ready_items"`);
  }
}
