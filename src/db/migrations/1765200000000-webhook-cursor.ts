import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks read the change log through a cursor instead of an outbox row per
 * change. `position` is the last change delivered; `sending` is the last
 * change of the POST under way (null when none), set by the one server that
 * claimed it. A delivery row is one POST: the changes after `afterChangeId`
 * up to `throughChangeId` under the webhook's domain (rebuilt from the log
 * for each attempt, so no body is stored), at most one open per webhook;
 * delivered rows are pruned to the latest few. `owner` is the principal of
 * the token that created the webhook (null with auth off).
 *
 * Upgrading: a webhook with undelivered rows moves its cursor back to just
 * before the oldest of them, so each is sent again from the log; the old
 * rows (and the history of delivered ones) are dropped, and delivery ids go
 * on after the last one given.
 */
export class WebhookCursor1765200000000 implements MigrationInterface {
  name = 'WebhookCursor1765200000000';

  async up(runner: QueryRunner): Promise<void> {
    const postgres = runner.connection.options.type === 'postgres';
    await runner.query(`ALTER TABLE "webhooks" ADD COLUMN "owner" VARCHAR(64)`);
    await runner.query(`ALTER TABLE "webhooks" ADD COLUMN "sending" BIGINT`);
    await runner.query(`UPDATE "webhooks" SET "position" = (
      SELECT MIN(d."changeId") - 1 FROM "webhook_deliveries" d WHERE d."webhookId" = "webhooks"."id" AND d."deliveredAt" IS NULL)
      WHERE EXISTS (SELECT 1 FROM "webhook_deliveries" d WHERE d."webhookId" = "webhooks"."id" AND d."deliveredAt" IS NULL)`);
    const [{ last }] = (await runner.query(`SELECT MAX("id") AS "last" FROM "webhook_deliveries"`)) as { last: number | string | null }[];
    await runner.query(`DROP TABLE "webhook_deliveries"`);
    await runner.query(`CREATE TABLE "webhook_deliveries" (
      "id" ${postgres ? 'BIGSERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT'},
      "webhookId" INTEGER NOT NULL REFERENCES "webhooks" ("id") ON DELETE CASCADE,
      "afterChangeId" BIGINT NOT NULL,
      "throughChangeId" BIGINT NOT NULL,
      "changeCount" INTEGER NOT NULL,
      "firstChange" TEXT,
      "attempts" INTEGER NOT NULL,
      "lastStatus" INTEGER,
      "lastError" VARCHAR(300),
      "deliveredAt" VARCHAR(24),
      "nextAttemptAt" VARCHAR(24),
      "leasedUntil" VARCHAR(24))`);
    // A webhook's latest deliveries, newest first (and the pruning of older ones).
    await runner.query(`CREATE INDEX "webhook_deliveries_by_webhook" ON "webhook_deliveries" ("webhookId", "id")`);
    // Delivery ids go on from the old table's: a receiver drops an id it has handled, so none may be given twice.
    if (last !== null && Number(last) > 0) {
      await runner.query(postgres
        ? `SELECT setval(pg_get_serial_sequence('webhook_deliveries', 'id'), ${Number(last)})`
        : `INSERT INTO "sqlite_sequence" ("name", "seq") VALUES ('webhook_deliveries', ${Number(last)})`);
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    const postgres = runner.connection.options.type === 'postgres';
    await runner.query(`DROP TABLE "webhook_deliveries"`);
    await runner.query(`CREATE TABLE "webhook_deliveries" (
      "id" ${postgres ? 'BIGSERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT'},
      "webhookId" INTEGER NOT NULL REFERENCES "webhooks" ("id") ON DELETE CASCADE,
      "changeId" BIGINT NOT NULL,
      "body" TEXT NOT NULL,
      "attempts" INTEGER NOT NULL,
      "lastStatus" INTEGER,
      "deliveredAt" VARCHAR(24),
      "nextAttemptAt" VARCHAR(24),
      "leasedUntil" VARCHAR(24),
      "lastError" VARCHAR(300))`);
    await runner.query(`CREATE INDEX "webhook_deliveries_by_webhook" ON "webhook_deliveries" ("webhookId", "id")`);
    await runner.query(`CREATE INDEX "webhook_deliveries_due" ON "webhook_deliveries" ("webhookId", "id") WHERE "deliveredAt" IS NULL`);
    await runner.query(`ALTER TABLE "webhooks" DROP COLUMN "sending"`);
    await runner.query(`ALTER TABLE "webhooks" DROP COLUMN "owner"`);
  }
}
