import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Claims (leases on items) and briefs' depends_on as rows. Existing briefs'
 * dependencies are copied into edges here, so ready, blockedBy and blocks
 * answer for briefs written before this release as for new ones.
 */
export class ClaimsAndDependencies1764520000000 implements MigrationInterface {
  name = 'ClaimsAndDependencies1764520000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE "claims" (
      "itemId" INTEGER PRIMARY KEY NOT NULL,
      "taskId" INTEGER NOT NULL,
      "sessionId" VARCHAR(64) NOT NULL,
      "claimedAt" VARCHAR(24) NOT NULL,
      "expiresAt" VARCHAR(24) NOT NULL)`);
    await runner.query(`CREATE INDEX "idx_claims_session" ON "claims" ("sessionId", "expiresAt")`);
    await runner.query(`CREATE TABLE "item_dependencies" (
      "noteId" INTEGER NOT NULL,
      "itemId" INTEGER NOT NULL,
      "dependsOnId" INTEGER NOT NULL,
      "taskId" INTEGER NOT NULL,
      "reason" TEXT,
      PRIMARY KEY ("noteId", "itemId", "dependsOnId"))`);
    await runner.query(`CREATE INDEX "idx_item_dependencies_item" ON "item_dependencies" ("itemId")`);
    await runner.query(`CREATE INDEX "idx_item_dependencies_target" ON "item_dependencies" ("dependsOnId")`);
    await backfill(runner);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "item_dependencies"`);
    await runner.query(`DROP TABLE "claims"`);
  }
}

/** Edges from every brief already written: each briefed item waits for each item its dependsOn names. */
async function backfill(runner: QueryRunner): Promise<void> {
  const postgres = runner.connection.options.type === 'postgres';
  const notes = (await runner.query(`SELECT "id", "taskId", "brief" FROM "task_notes" WHERE "brief" IS NOT NULL`)) as { id: number; taskId: number; brief: string }[];
  for (const note of notes) {
    const brief = JSON.parse(note.brief) as { dependsOn?: { item: string; reason: string | null }[] };
    if (!brief.dependsOn?.length) continue;
    const items = (await runner.query(`SELECT "itemId" FROM "task_note_items" WHERE "noteId" = ${postgres ? '$1' : '?'}`, [note.id])) as { itemId: number }[];
    for (const { itemId } of items) {
      for (const dependency of brief.dependsOn) {
        const params = [note.id, itemId, Number(dependency.item), note.taskId, dependency.reason ?? null];
        const marks = postgres ? '$1, $2, $3, $4, $5' : '?, ?, ?, ?, ?';
        await runner.query(`INSERT INTO "item_dependencies" ("noteId", "itemId", "dependsOnId", "taskId", "reason") VALUES (${marks})`, params);
      }
    }
  }
}
