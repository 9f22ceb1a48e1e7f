import type { MigrationInterface, QueryRunner } from 'typeorm';
import { applyDelta, type ListDelta } from '../../domain/list-delta.js';
import type { Snapshot } from '../../domain/list-diff.js';

/**
 * History rows store the list after a change as a delta from the event
 * before, with a whole list (a checkpoint) now and then: where a row stands
 * in its chain of deltas. Every row written before holds its whole list, so
 * it is a checkpoint: the columns' default, 0, says so and no row is
 * rewritten. Going back rebuilds each delta row's whole list, so the older
 * code reads every row as it expects. The same DDL on SQLite and PostgreSQL.
 */
export class HistoryDeltas1765400000000 implements MigrationInterface {
  name = 'HistoryDeltas1765400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE "task_events" ADD COLUMN "chainLength" INTEGER NOT NULL DEFAULT 0`);
    await runner.query(`ALTER TABLE "task_events" ADD COLUMN "chainBytes" INTEGER NOT NULL DEFAULT 0`);
  }

  async down(runner: QueryRunner): Promise<void> {
    const rows: { id: number; taskId: number; items: string; chainLength: number }[] = await runner.query(
      `SELECT "id", "taskId", "items", "chainLength" FROM "task_events" ORDER BY "taskId", "id"`,
    );
    let taskId: number | null = null;
    let list: Snapshot[] = [];
    for (const row of rows) {
      if (Number(row.chainLength) === 0) {
        list = JSON.parse(row.items) as Snapshot[];
      } else {
        if (Number(row.taskId) !== taskId) throw new Error(`history row ${row.id} is a delta with no checkpoint before it`);
        list = applyDelta(list, JSON.parse(row.items) as ListDelta);
        const whole = runner.connection.driver.options.type === 'postgres' ? `UPDATE "task_events" SET "items" = $1 WHERE "id" = $2` : `UPDATE "task_events" SET "items" = ? WHERE "id" = ?`;
        await runner.query(whole, [JSON.stringify(list), row.id]);
      }
      taskId = Number(row.taskId);
    }
    await runner.query(`ALTER TABLE "task_events" DROP COLUMN "chainBytes"`);
    await runner.query(`ALTER TABLE "task_events" DROP COLUMN "chainLength"`);
  }
}
