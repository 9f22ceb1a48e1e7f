import type { MigrationInterface, QueryRunner } from 'typeorm';

const COUNTED: Record<string, string> = {
  pendingItems: 'PENDING', inProgressItems: 'IN_PROGRESS', doneItems: 'DONE', droppedItems: 'DROPPED', blockedItems: 'BLOCKED', failedItems: 'FAILED',
};

/**
 * Each task's counts of live items by state on its row, filled from the
 * items for a database that already has tasks. The state column next to
 * them is derived from the counts by the domain's rule when the database
 * opens (db/task-counts.ts rederiveTaskStates), not here in SQL.
 */
export class TaskCounts1764490000000 implements MigrationInterface {
  name = 'TaskCounts1764490000000';

  async up(runner: QueryRunner): Promise<void> {
    for (const column of Object.keys(COUNTED)) {
      await runner.query(`ALTER TABLE "memories" ADD COLUMN "${column}" INTEGER NOT NULL DEFAULT 0`);
    }
    await runner.query(`ALTER TABLE "memories" ADD COLUMN "taskState" VARCHAR(16)`);
    const recount = Object.entries(COUNTED).map(([column, state]) =>
      `"${column}" = (SELECT COUNT(*) FROM "items" i WHERE i."taskId" = "memories"."id" AND NOT i."deleted" AND i."state" = '${state}')`);
    await runner.query(`UPDATE "memories" SET ${recount.join(', ')} WHERE "kind" = 'TASK'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const column of [...Object.keys(COUNTED), 'taskState']) await runner.query(`ALTER TABLE "memories" DROP COLUMN "${column}"`);
  }
}
