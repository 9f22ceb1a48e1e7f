import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A session's name: what the agent called it in startSession, or the MCP
 * client's clientInfo title or name. Null for sessions started before, and
 * for those that gave none (Session.name then falls back to the plan's
 * first step). The same DDL on SQLite and PostgreSQL.
 */
export class SessionNames1764560000000 implements MigrationInterface {
  name = 'SessionNames1764560000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE "sessions" ADD COLUMN "name" VARCHAR(120)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE "sessions" DROP COLUMN "name"`);
  }
}
