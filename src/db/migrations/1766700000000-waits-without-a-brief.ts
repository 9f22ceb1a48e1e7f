import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A waits-for edge may stand without a brief: task_item's `after` (updateItem's
 * `after`) declares one on an item alone, its "noteId" NULL. The table keeps
 * being the one place every reader of waits reads (ready rows, claimNext,
 * blockedBy, task_read), so it is rebuilt with a row id of its own as its key
 * (a key column cannot be NULL) and the brief's edges kept unique by an index
 * (NULLs never collide in it: an item's own edges are replaced as a set by
 * their writer). Rebuilt rather than altered: SQLite cannot change a key in
 * place, and one path keeps both databases alike.
 */
export class WaitsWithoutABrief1766700000000 implements MigrationInterface {
  name = 'WaitsWithoutABrief1766700000000';

  async up(runner: QueryRunner): Promise<void> {
    const postgres = runner.connection.options.type === 'postgres';
    await runner.query(`CREATE TABLE "item_dependencies_next" (
      "id" ${postgres ? 'SERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY'},
      "noteId" INTEGER,
      "itemId" INTEGER NOT NULL,
      "dependsOnId" INTEGER NOT NULL,
      "taskId" INTEGER NOT NULL,
      "reason" TEXT)`);
    await runner.query(`INSERT INTO "item_dependencies_next" ("noteId", "itemId", "dependsOnId", "taskId", "reason")
      SELECT "noteId", "itemId", "dependsOnId", "taskId", "reason" FROM "item_dependencies" ORDER BY "noteId", "itemId", "dependsOnId"`);
    await runner.query(`DROP TABLE "item_dependencies"`);
    await runner.query(`ALTER TABLE "item_dependencies_next" RENAME TO "item_dependencies"`);
    await indexes(runner);
    await runner.query(`CREATE UNIQUE INDEX "idx_item_dependencies_brief" ON "item_dependencies" ("noteId", "itemId", "dependsOnId")`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DELETE FROM "item_dependencies" WHERE "noteId" IS NULL`);
    await runner.query(`CREATE TABLE "item_dependencies_prev" (
      "noteId" INTEGER NOT NULL,
      "itemId" INTEGER NOT NULL,
      "dependsOnId" INTEGER NOT NULL,
      "taskId" INTEGER NOT NULL,
      "reason" TEXT,
      PRIMARY KEY ("noteId", "itemId", "dependsOnId"))`);
    await runner.query(`INSERT INTO "item_dependencies_prev" ("noteId", "itemId", "dependsOnId", "taskId", "reason")
      SELECT "noteId", "itemId", "dependsOnId", "taskId", "reason" FROM "item_dependencies"`);
    await runner.query(`DROP TABLE "item_dependencies"`);
    await runner.query(`ALTER TABLE "item_dependencies_prev" RENAME TO "item_dependencies"`);
    await indexes(runner);
  }
}

/** The three read paths' indexes: what an item waits for, what waits for an item, a task's edges (caps and cycles). */
async function indexes(runner: QueryRunner): Promise<void> {
  await runner.query(`CREATE INDEX "idx_item_dependencies_item" ON "item_dependencies" ("itemId")`);
  await runner.query(`CREATE INDEX "idx_item_dependencies_target" ON "item_dependencies" ("dependsOnId")`);
  await runner.query(`CREATE INDEX "idx_item_dependencies_task" ON "item_dependencies" ("taskId")`);
}
