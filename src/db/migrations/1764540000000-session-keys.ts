import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat keys (x-session-key, --session-key): one row per bearer token's
 * principal ('' with auth off) and key, naming the session the key found or
 * started. No foreign key on sessionId: the row is written before the
 * session it names (SessionService.sessionForKey), so two connections
 * with one key agree on one session. The same DDL on SQLite and PostgreSQL.
 */
export class SessionKeys1764540000000 implements MigrationInterface {
  name = 'SessionKeys1764540000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE TABLE "session_keys" (
        "principal" VARCHAR(64) NOT NULL,
        "key" VARCHAR(128) NOT NULL,
        "sessionId" VARCHAR(64) NOT NULL,
        "createdAt" VARCHAR(24) NOT NULL,
        PRIMARY KEY ("principal", "key"))`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "session_keys"`);
  }
}
