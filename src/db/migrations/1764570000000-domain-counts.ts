import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What one memory row adds to its domain's counts (`row` is NEW, OLD or an alias): a
 * task, an open task, a note, a note not archived. The same rules as the
 * lists' (services/memories/memory-reader.ts): a task is open while its
 * kept state is OPEN, a note active while not archived.
 */
function contribution(row: string): Record<string, string> {
  return {
    tasks: `CASE WHEN ${row}."kind" = 'TASK' THEN 1 ELSE 0 END`,
    openTasks: `CASE WHEN ${row}."kind" = 'TASK' AND ${row}."taskState" = 'OPEN' THEN 1 ELSE 0 END`,
    notes: `CASE WHEN ${row}."kind" = 'NOTE' THEN 1 ELSE 0 END`,
    activeNotes: `CASE WHEN ${row}."kind" = 'NOTE' AND NOT ${row}."archived" THEN 1 ELSE 0 END`,
  };
}

const COLUMNS = Object.keys(contribution('NEW'));

/** A row counts when it is in the knowledge base: it has a domain and is no session's plan. */
const counted = (row: string) => `${row}."domain" IS NOT NULL AND ${row}."sessionId" IS NULL`;

/**
 * The columns a count depends on: an update that changes none of them leaves every count as it is. `updatedAt` is
 * among them for the domain's last activity (what the dashboard sorts domains by): such an update takes the row's
 * counts out and puts them back, and moves lastActivityAt on.
 */
const WATCHED = ['domain', 'kind', 'taskState', 'archived', 'sessionId', 'updatedAt'];

function addNew(table: string): string {
  const add = contribution('NEW');
  // Times are ISO-8601 strings of one width (memory.entity.ts), so comparing them as strings orders them as times.
  return `INSERT INTO "domain_counts" ("domain", ${COLUMNS.map((c) => `"${c}"`).join(', ')}, "lastActivityAt", "createdAt")
    SELECT NEW."domain", ${COLUMNS.map((c) => add[c]).join(', ')}, NEW."updatedAt", NEW."createdAt" WHERE ${counted('NEW')}
    ON CONFLICT ("domain") DO UPDATE SET ${COLUMNS.map((c) => `"${c}" = ${table}"${c}" + EXCLUDED."${c}"`).join(', ')},
      "lastActivityAt" = CASE WHEN EXCLUDED."lastActivityAt" > ${table}"lastActivityAt" THEN EXCLUDED."lastActivityAt" ELSE ${table}"lastActivityAt" END,
      "createdAt" = CASE WHEN ${table}"createdAt" = '' OR EXCLUDED."createdAt" < ${table}"createdAt" THEN EXCLUDED."createdAt" ELSE ${table}"createdAt" END`;
}

function takeOld(): string {
  const take = contribution('OLD');
  return `UPDATE "domain_counts" SET ${COLUMNS.map((c) => `"${c}" = "${c}" - ${take[c]}`).join(', ')}
    WHERE "domain" = OLD."domain" AND ${counted('OLD')}`;
}

/**
 * Each domain's counts of its own memories (tasks, open tasks, notes, active
 * notes; the latest change and the first creation), kept by triggers on `memories` in the transaction of whatever
 * writes a row: a task created, moved, opened or settled, a note archived,
 * a plan purged, the states re-derived on open, a bulk load. No writer can
 * forget one, so domains() and the memories pages read these rows (one per
 * domain) instead of counting a scope's memories. A domain whose memories
 * are all gone keeps a row of zeros, which the readers leave out.
 */
export class DomainCounts1764570000000 implements MigrationInterface {
  name = 'DomainCounts1764570000000';

  async up(runner: QueryRunner): Promise<void> {
    const postgres = runner.connection.options.type === 'postgres';
    await runner.query(`CREATE TABLE "domain_counts" (
      "domain" VARCHAR(400)${postgres ? ' COLLATE "C"' : ''} PRIMARY KEY NOT NULL,
      ${COLUMNS.map((c) => `"${c}" INTEGER NOT NULL DEFAULT 0`).join(',\n      ')},
      "lastActivityAt" VARCHAR(24) NOT NULL DEFAULT '',
      "createdAt" VARCHAR(24) NOT NULL DEFAULT '')`);
    const changed = WATCHED.map((c) => `OLD."${c}" IS DISTINCT FROM NEW."${c}"`).join(' OR ');
    if (postgres) {
      await runner.query(`CREATE FUNCTION "domain_counts_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP <> 'INSERT' THEN ${takeOld()}; END IF;
          IF TG_OP <> 'DELETE' THEN ${addNew('"domain_counts".')}; END IF;
          RETURN NULL;
        END $$`);
      await runner.query(`CREATE TRIGGER "memories_domain_counts" AFTER INSERT OR DELETE ON "memories"
        FOR EACH ROW EXECUTE FUNCTION "domain_counts_follow"()`);
      await runner.query(`CREATE TRIGGER "memories_domain_counts_update" AFTER UPDATE OF ${WATCHED.map((c) => `"${c}"`).join(', ')} ON "memories"
        FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION "domain_counts_follow"()`);
    } else {
      await runner.query(`CREATE TRIGGER "memories_domain_counts_insert" AFTER INSERT ON "memories" BEGIN ${addNew('')}; END`);
      await runner.query(`CREATE TRIGGER "memories_domain_counts_delete" AFTER DELETE ON "memories" BEGIN ${takeOld()}; END`);
      await runner.query(`CREATE TRIGGER "memories_domain_counts_update" AFTER UPDATE OF ${WATCHED.map((c) => `"${c}"`).join(', ')} ON "memories"
        WHEN ${changed.replaceAll('IS DISTINCT FROM', 'IS NOT')} BEGIN ${takeOld()}; ${addNew('')}; END`);
    }
    const fill = contribution('m');
    await runner.query(`INSERT INTO "domain_counts" ("domain", ${COLUMNS.map((c) => `"${c}"`).join(', ')}, "lastActivityAt", "createdAt")
      SELECT m."domain", ${COLUMNS.map((c) => `SUM(${fill[c]})`).join(', ')}, MAX(m."updatedAt"), MIN(m."createdAt") FROM "memories" m
      WHERE ${counted('m')} GROUP BY m."domain"`);
  }

  async down(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type === 'postgres') {
      await runner.query(`DROP TRIGGER "memories_domain_counts" ON "memories"`);
      await runner.query(`DROP TRIGGER "memories_domain_counts_update" ON "memories"`);
      await runner.query(`DROP FUNCTION "domain_counts_follow"()`);
    } else {
      for (const trigger of ['insert', 'delete', 'update']) await runner.query(`DROP TRIGGER "memories_domain_counts_${trigger}"`);
    }
    await runner.query(`DROP TABLE "domain_counts"`);
  }
}
