import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A domain's memories most recently changed first (memories(order:
 * RECENTLY_UPDATED), the dashboard's task table sorted by update): the index
 * walks one domain in that order, so a page stops at its last row instead of
 * sorting every memory of the domain.
 */
export class MemoriesByUpdate1766500000000 implements MigrationInterface {
  name = 'MemoriesByUpdate1766500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX "idx_memories_domain_updated" ON "memories" ("domain", "updatedAt", "id")`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX "idx_memories_domain_updated"`);
  }
}
