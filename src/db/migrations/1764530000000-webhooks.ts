import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks and their outbox. A webhook keeps its own durable position in the
 * change log (`position`, the last log id copied into its outbox): the
 * dispatcher fills the outbox from the log, so no writer's transaction does
 * any webhook work. A delivery row is one change for one webhook, its body
 * fixed when copied (a retry sends the same bytes, after the change itself
 * may have been pruned); `leasedUntil` is how one server at a time sends it.
 * Times are ISO strings, as in the change log, so they compare as text.
 */
export class Webhooks1764530000000 implements MigrationInterface {
  name = 'Webhooks1764530000000';

  async up(runner: QueryRunner): Promise<void> {
    const postgres = runner.connection.options.type === 'postgres';
    const id = postgres ? 'BIGSERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT';
    await runner.query(`CREATE TABLE "webhooks" (
      "id" ${postgres ? 'SERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT'},
      "url" VARCHAR(2000) NOT NULL,
      "domain" VARCHAR(400)${postgres ? ' COLLATE "C"' : ''},
      "secret" VARCHAR(200) NOT NULL,
      "active" BOOLEAN NOT NULL,
      "createdAt" VARCHAR(24) NOT NULL,
      "position" BIGINT NOT NULL)`);
    await runner.query(`CREATE TABLE "webhook_deliveries" (
      "id" ${id},
      "webhookId" INTEGER NOT NULL REFERENCES "webhooks" ("id") ON DELETE CASCADE,
      "changeId" BIGINT NOT NULL,
      "body" TEXT NOT NULL,
      "attempts" INTEGER NOT NULL,
      "lastStatus" INTEGER,
      "deliveredAt" VARCHAR(24),
      "nextAttemptAt" VARCHAR(24),
      "leasedUntil" VARCHAR(24))`);
    // The head of each webhook's queue (its oldest undelivered delivery), and its latest deliveries, newest first.
    await runner.query(`CREATE INDEX "webhook_deliveries_by_webhook" ON "webhook_deliveries" ("webhookId", "id")`);
    await runner.query(`CREATE INDEX "webhook_deliveries_due" ON "webhook_deliveries" ("webhookId", "id") WHERE "deliveredAt" IS NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "webhook_deliveries"`);
    await runner.query(`DROP TABLE "webhooks"`);
  }
}
