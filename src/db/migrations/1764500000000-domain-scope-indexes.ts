import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for "this domain and below" read as a range of the domain column
 * (services/kernel/domain-scope.ts), one per list's order: memories by id,
 * open tasks by updatedAt (mustRead, reminders), and a covering one for the
 * domain counts. On PostgreSQL the domain column compares byte by byte
 * (COLLATE "C"), as SQLite's does, so the range holds exactly the paths
 * below a domain whatever the server's locale.
 */
export class DomainScopeIndexes1764500000000 implements MigrationInterface {
  name = 'DomainScopeIndexes1764500000000';

  async up(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type === 'postgres') {
      await runner.query(`ALTER TABLE "memories" ALTER COLUMN "domain" TYPE VARCHAR(400) COLLATE "C"`);
    }
    await runner.query(`DROP INDEX "idx_memories_domain"`);
    await runner.query(`CREATE INDEX "idx_memories_domain_id" ON "memories" ("domain", "id")`);
    await runner.query(`CREATE INDEX "idx_memories_open_tasks" ON "memories" ("taskState", "domain", "updatedAt", "id")`);
    await runner.query(`CREATE INDEX "idx_memories_domain_counts" ON "memories" ("domain", "kind", "taskState")`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const index of ['idx_memories_domain_id', 'idx_memories_open_tasks', 'idx_memories_domain_counts']) await runner.query(`DROP INDEX "${index}"`);
    await runner.query(`CREATE INDEX "idx_memories_domain" ON "memories" ("domain")`);
  }
}
