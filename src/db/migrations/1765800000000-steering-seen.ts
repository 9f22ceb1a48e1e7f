import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a session has been told of others' changes (services/sessions/steering.service.ts):
 * the change-log id it was told up to and when. Sessions stored before are
 * taken as told of everything logged so far, so an upgrade does not replay
 * a session's whole history at its next call. And the change log by the
 * session a change is about, which that read ranges over.
 */
export class SteeringSeen1765800000000 implements MigrationInterface {
  name = 'SteeringSeen1765800000000';

  async up(runner: QueryRunner): Promise<void> {
    const postgres = runner.connection.options.type === 'postgres';
    await runner.query(`ALTER TABLE "sessions" ADD COLUMN "steeringCursor" ${postgres ? 'BIGINT' : 'INTEGER'} NOT NULL DEFAULT 0`);
    await runner.query(`ALTER TABLE "sessions" ADD COLUMN "steeringSeenAt" VARCHAR(24)`);
    await runner.query(`UPDATE "sessions" SET "steeringCursor" = (SELECT COALESCE(MAX("id"), 0) FROM "changes")`);
    await runner.query(`CREATE INDEX "idx_changes_session" ON "changes" ("sessionId", "id") WHERE "sessionId" IS NOT NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX "idx_changes_session"`);
    await runner.query(`ALTER TABLE "sessions" DROP COLUMN "steeringSeenAt"`);
    await runner.query(`ALTER TABLE "sessions" DROP COLUMN "steeringCursor"`);
  }
}
