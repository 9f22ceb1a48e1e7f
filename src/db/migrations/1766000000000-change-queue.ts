import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * PostgreSQL's change log orders itself without a lock that writers take
 * (services/kernel/changes/change-log.ts). A writer appends its events to
 * `change_queue`, stamped with its transaction id (`xid`), and waits for
 * nobody: queue ids are drawn as rows are inserted and may commit in any
 * order. Readers move what has committed from the queue into `changes`
 * (sequenceChanges), one move at a time, each one short statement under a
 * lock only movers take; so `changes` ids become visible in the order they
 * are given, and a reader going by id never steps over one still to appear.
 *
 * SQLite keeps one writer at a time (the write lock), so its writers append
 * to `changes` directly and it needs no queue.
 */
export class ChangeQueue1766000000000 implements MigrationInterface {
  name = 'ChangeQueue1766000000000';

  async up(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type !== 'postgres') return;
    await runner.query(`CREATE TABLE "change_queue" (
      "id" BIGSERIAL PRIMARY KEY,
      "xid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
      "at" VARCHAR(24) NOT NULL,
      "action" VARCHAR(32) NOT NULL,
      "entity" VARCHAR(16) NOT NULL,
      "entityId" VARCHAR(64) NOT NULL,
      "kind" VARCHAR(8),
      "domain" VARCHAR(400) COLLATE "C",
      "taskId" INTEGER,
      "itemId" INTEGER,
      "sessionId" VARCHAR(64),
      "madeBy" TEXT)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type !== 'postgres') return;
    await runner.query(`DROP TABLE "change_queue"`);
  }
}
