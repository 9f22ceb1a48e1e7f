import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Why a delivery's last attempt got no answer (could not connect, timed
 * out, refused target), so the dashboard can say what is wrong with a
 * failing webhook. Never the receiver's body. The same DDL on SQLite and
 * PostgreSQL.
 */
export class WebhookLastError1764550000000 implements MigrationInterface {
  name = 'WebhookLastError1764550000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE "webhook_deliveries" ADD COLUMN "lastError" VARCHAR(300)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "lastError"`);
  }
}
