import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Claims fence and are capped per token; dependencies are capped per task.
 * A claim row says whose lapsed claim it took over ("takenFrom": that
 * session's late changes are refused as taken over) and which bearer token
 * took it ("owner", counted by the per-token cap through its index). A task's
 * edges are read by task when a brief is written (the cycle check and the
 * caps): without an index on "taskId" that read walked every task's edges.
 * The same DDL on SQLite and PostgreSQL.
 */
export class ClaimFencingAndDependencyCaps1765300000000 implements MigrationInterface {
  name = 'ClaimFencingAndDependencyCaps1765300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE "claims" ADD COLUMN "takenFrom" VARCHAR(64)`);
    await runner.query(`ALTER TABLE "claims" ADD COLUMN "owner" VARCHAR(64)`);
    await runner.query(`CREATE INDEX "idx_claims_owner" ON "claims" ("owner", "expiresAt")`);
    await runner.query(`CREATE INDEX "idx_item_dependencies_task" ON "item_dependencies" ("taskId")`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX "idx_item_dependencies_task"`);
    await runner.query(`DROP INDEX "idx_claims_owner"`);
    await runner.query(`ALTER TABLE "claims" DROP COLUMN "owner"`);
    await runner.query(`ALTER TABLE "claims" DROP COLUMN "takenFrom"`);
  }
}
