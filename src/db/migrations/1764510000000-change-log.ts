import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change log: one row per change event, appended in the transaction that
 * made the change, by whichever process made it. Servers tail it by id, so
 * the id must never be reused (AUTOINCREMENT on SQLite: a plain rowid would
 * hand out the ids of pruned rows again once the table is empty) and must be
 * wide enough never to run out (BIGSERIAL on PostgreSQL). The domain compares
 * byte by byte on PostgreSQL, as memories' does, for scoped reads later.
 */
export class ChangeLog1764510000000 implements MigrationInterface {
  name = 'ChangeLog1764510000000';

  async up(runner: QueryRunner): Promise<void> {
    const postgres = runner.connection.options.type === 'postgres';
    await runner.query(`CREATE TABLE "changes" (
      "id" ${postgres ? 'BIGSERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT'},
      "at" VARCHAR(24) NOT NULL,
      "action" VARCHAR(32) NOT NULL,
      "entity" VARCHAR(16) NOT NULL,
      "entityId" VARCHAR(64) NOT NULL,
      "kind" VARCHAR(8),
      "domain" VARCHAR(400)${postgres ? ' COLLATE "C"' : ''},
      "taskId" INTEGER,
      "itemId" INTEGER,
      "sessionId" VARCHAR(64),
      "madeBy" TEXT)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "changes"`);
  }
}
