import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the session lists, in the order each reads:
 * - ("parentId", "createdAt", "id"): a session's helpers, oldest first,
 *   ranked per parent (session-reader.ts CHILDREN_OF), read in the window's
 *   order instead of sorted; on SQLite it also answers the top-level lists
 *   (`"parentId" IS NULL`, newest first) as one range. It replaces the index
 *   on "parentId" alone, which is its prefix.
 * - ("createdAt", "id") over top-level sessions only: PostgreSQL does not
 *   read an index in order after an IS NULL on its first column (only after
 *   an equality), so without it the sessions page sorted every top-level
 *   session to list 50 (2.7 ms at 5,000 sessions; 0.04 ms read backward here).
 */
export class SessionOrderIndexes1764586000000 implements MigrationInterface {
  name = 'SessionOrderIndexes1764586000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX "idx_sessions_parent_created" ON "sessions" ("parentId", "createdAt", "id")`);
    await runner.query(`CREATE INDEX "idx_sessions_top_created" ON "sessions" ("createdAt", "id") WHERE "parentId" IS NULL`);
    await runner.query(`DROP INDEX "idx_sessions_parent"`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX "idx_sessions_parent" ON "sessions" ("parentId")`);
    await runner.query(`DROP INDEX "idx_sessions_top_created"`);
    await runner.query(`DROP INDEX "idx_sessions_parent_created"`);
  }
}
