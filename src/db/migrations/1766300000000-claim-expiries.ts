import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The claims whose end is accounted for (services/claims/claim-expiry.ts):
 * one row per claim (its item and the instant it ended) that was either
 * told as expired (an ITEM_CLAIM_EXPIRED change) or ended on purpose (done,
 * dropped, released, its session finished). A claim ended before this
 * release is taken as accounted for, so an upgrade does not announce every
 * lease that ran out in the past. And claims by when they end, which the
 * sweep ranges over.
 */
export class ClaimExpiries1766300000000 implements MigrationInterface {
  name = 'ClaimExpiries1766300000000';

  async up(runner: QueryRunner): Promise<void> {
    const postgres = runner.connection.options.type === 'postgres';
    const now = postgres
      ? `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
    await runner.query(`CREATE TABLE "claim_expiries" (
      "itemId" INTEGER NOT NULL,
      "expiresAt" VARCHAR(24) NOT NULL,
      PRIMARY KEY ("itemId", "expiresAt"))`);
    await runner.query(`INSERT INTO "claim_expiries" ("itemId", "expiresAt") SELECT "itemId", "expiresAt" FROM "claims" WHERE "expiresAt" <= ${now}`);
    await runner.query(`CREATE INDEX "idx_claims_expiry" ON "claims" ("expiresAt")`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX "idx_claims_expiry"`);
    await runner.query(`DROP TABLE "claim_expiries"`);
  }
}
