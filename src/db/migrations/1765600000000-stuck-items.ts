import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The inbox of stuck work (stuckItems): every BLOCKED or FAILED live item,
 * newest change first, read from a partial index that holds only those rows,
 * so a page and its count cost the same whatever the number of items. And
 * the change log by item, for who last set each one's state.
 */
export class StuckItems1765600000000 implements MigrationInterface {
  name = 'StuckItems1765600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX "idx_items_stuck" ON "items" ("updatedAt", "id") WHERE "state" IN ('BLOCKED', 'FAILED') AND "deleted" = false`);
    await runner.query(`CREATE INDEX "idx_changes_item" ON "changes" ("itemId", "id") WHERE "itemId" IS NOT NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX "idx_changes_item"`);
    await runner.query(`DROP INDEX "idx_items_stuck"`);
  }
}
