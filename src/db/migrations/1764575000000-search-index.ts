import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * PostgreSQL's search index without fastupdate: every search reads GIN's
 * pending list whole (up to gin_pending_list_limit, 4 MB, of recent writes
 * not yet merged), so with it a search's cost followed the writes since the
 * last vacuum; without it each write goes into the index itself and a search
 * reads only the entries of its words. The pending list is merged here once.
 * SQLite's FTS5 index has no such list: nothing to change there.
 */
export class SearchIndex1764575000000 implements MigrationInterface {
  name = 'SearchIndex1764575000000';

  async up(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type !== 'postgres') return;
    await runner.query(`ALTER INDEX "idx_memory_search" SET (fastupdate = off)`);
    await runner.query(`SELECT gin_clean_pending_list('idx_memory_search')`);
  }

  async down(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type !== 'postgres') return;
    await runner.query(`ALTER INDEX "idx_memory_search" RESET (fastupdate)`);
  }
}
