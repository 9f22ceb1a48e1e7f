import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A session belongs to the bearer token that started it: "owner" holds that
 * token's principal (a digest, never the token). Sessions started before
 * (or without auth) have none and stay open to any token, as before.
 * The same DDL on SQLite and PostgreSQL.
 */
export class SessionOwner1764470000000 implements MigrationInterface {
  name = 'SessionOwner1764470000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE "sessions" ADD COLUMN "owner" VARCHAR(64)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE "sessions" DROP COLUMN "owner"`);
  }
}
