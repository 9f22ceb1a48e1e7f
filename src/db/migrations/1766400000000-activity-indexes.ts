import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dashboard's activity stream (the change log newest first, by agent)
 * and its from → to: the change log by the session that made a change, and
 * a task's history rows by time, where a logged change finds the history row
 * its write recorded.
 */
export class ActivityIndexes1766400000000 implements MigrationInterface {
  name = 'ActivityIndexes1766400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX "idx_changes_made_by" ON "changes" ("madeBy", "id") WHERE "madeBy" IS NOT NULL`);
    await runner.query(`CREATE INDEX "idx_task_events_task_at" ON "task_events" ("taskId", "at")`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX "idx_task_events_task_at"`);
    await runner.query(`DROP INDEX "idx_changes_made_by"`);
  }
}
