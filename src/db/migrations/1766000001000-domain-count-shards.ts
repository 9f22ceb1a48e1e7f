import type { MigrationInterface, QueryRunner } from 'typeorm';

const COUNTS = ['tasks', 'openTasks', 'notes', 'activeNotes'] as const;

/** What one memory row (`row` is NEW or OLD) adds to its domain's counts, as DomainCounts1764570000000 counts it. */
function contribution(row: string): string[] {
  return [
    `CASE WHEN ${row}."kind" = 'TASK' THEN 1 ELSE 0 END`,
    `CASE WHEN ${row}."kind" = 'TASK' AND ${row}."taskState" = 'OPEN' THEN 1 ELSE 0 END`,
    `CASE WHEN ${row}."kind" = 'NOTE' THEN 1 ELSE 0 END`,
    `CASE WHEN ${row}."kind" = 'NOTE' AND NOT ${row}."archived" THEN 1 ELSE 0 END`,
  ];
}

const counted = (row: string) => `${row}."domain" IS NOT NULL AND ${row}."sessionId" IS NULL`;

/**
 * PostgreSQL: a domain's counts are kept over several rows (shards), summed
 * on read (services/memories/domain-counts.ts), so no row is one that every
 * write of a domain must lock. A change adds to a shard of its domain that no
 * other transaction holds (`FOR UPDATE SKIP LOCKED`), or to a new one when
 * all are held: a writer never waits for another's count, and a server
 * paused mid-transaction holds up no one else's. A domain has as many shards
 * as it ever had writers at once.
 *
 * SQLite keeps one writer at a time, so its one row per domain is no
 * queue and stays as it is; the readers sum by domain on both.
 */
export class DomainCountShards1766000001000 implements MigrationInterface {
  name = 'DomainCountShards1766000001000';

  async up(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type !== 'postgres') return;
    await runner.query(`ALTER TABLE "domain_counts" ADD COLUMN "shard" INTEGER NOT NULL DEFAULT 0`);
    await runner.query(`ALTER TABLE "domain_counts" DROP CONSTRAINT "domain_counts_pkey"`);
    await runner.query(`ALTER TABLE "domain_counts" ADD CONSTRAINT "domain_counts_pkey" PRIMARY KEY ("domain", "shard")`);
    const params = COUNTS.map((c) => `"d_${c}" INTEGER`).join(', ');
    const add = (table: string) => COUNTS.map((c) => `"${c}" = ${table}"${c}" + "d_${c}"`).join(', ');
    // Times are ISO-8601 strings of one width, so comparing them as strings orders them as times; '' is "none".
    const times = (table: string) => `"lastActivityAt" = GREATEST(${table}"lastActivityAt", "d_lastActivityAt"),
      "createdAt" = CASE WHEN "d_createdAt" <> '' AND (${table}"createdAt" = '' OR "d_createdAt" < ${table}"createdAt") THEN "d_createdAt" ELSE ${table}"createdAt" END`;
    await runner.query(`CREATE FUNCTION "domain_counts_add"("d_domain" VARCHAR, ${params}, "d_lastActivityAt" VARCHAR, "d_createdAt" VARCHAR)
      RETURNS void LANGUAGE plpgsql AS $$
      DECLARE "free" INTEGER;
      BEGIN
        SELECT "shard" INTO "free" FROM "domain_counts" WHERE "domain" = "d_domain" FOR UPDATE SKIP LOCKED LIMIT 1;
        IF FOUND THEN
          UPDATE "domain_counts" SET ${add('')}, ${times('')} WHERE "domain" = "d_domain" AND "shard" = "free";
        ELSE
          INSERT INTO "domain_counts" ("domain", "shard", ${COUNTS.map((c) => `"${c}"`).join(', ')}, "lastActivityAt", "createdAt")
            VALUES ("d_domain", floor(random() * 2147483647)::integer, ${COUNTS.map((c) => `"d_${c}"`).join(', ')}, "d_lastActivityAt", "d_createdAt")
            ON CONFLICT ("domain", "shard") DO UPDATE SET ${add('"domain_counts".')}, ${times('"domain_counts".')};
        END IF;
      END $$`);
    const oldOnes = contribution('OLD');
    const newOnes = contribution('NEW');
    await runner.query(`CREATE OR REPLACE FUNCTION "domain_counts_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND ${counted('OLD')} AND ${counted('NEW')} AND OLD."domain" = NEW."domain" THEN
          PERFORM "domain_counts_add"(NEW."domain", ${newOnes.map((n, i) => `(${n}) - (${oldOnes[i]})`).join(', ')}, NEW."updatedAt", NEW."createdAt");
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' AND ${counted('OLD')} THEN
          PERFORM "domain_counts_add"(OLD."domain", ${oldOnes.map((o) => `-(${o})`).join(', ')}, '', '');
        END IF;
        IF TG_OP <> 'DELETE' AND ${counted('NEW')} THEN
          PERFORM "domain_counts_add"(NEW."domain", ${newOnes.join(', ')}, NEW."updatedAt", NEW."createdAt");
        END IF;
        RETURN NULL;
      END $$`);
  }

  async down(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type !== 'postgres') return;
    throw new Error('DomainCountShards1766000001000 is not reverted: sum the shards into one row per domain first');
  }
}
