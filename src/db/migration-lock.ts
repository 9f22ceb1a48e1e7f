import type { DataSource } from 'typeorm';

/** The advisory lock every taskbase process takes to migrate: a fixed 64-bit key, "taskbase" in ASCII as hex. */
const MIGRATION_LOCK_KEY = '7461736b62617365';

/**
 * Runs the migrations so that several server processes starting at once on
 * one PostgreSQL database take turns: the first applies them, the others wait
 * on a session advisory lock, then find them applied. Without it two fresh
 * starts both run CREATE TABLE and one dies. SQLite has one server process
 * per file, so it migrates directly.
 */
export async function migrateExclusively(source: DataSource): Promise<string[]> {
  if (source.options.type !== 'postgres') {
    return (await source.runMigrations({ transaction: 'each' })).map((migration) => migration.name);
  }
  const runner = source.createQueryRunner();
  await runner.connect();
  try {
    await runner.query(`SELECT pg_advisory_lock(x'${MIGRATION_LOCK_KEY}'::bigint)`);
    try {
      return (await source.runMigrations({ transaction: 'each' })).map((migration) => migration.name);
    } finally {
      await runner.query(`SELECT pg_advisory_unlock(x'${MIGRATION_LOCK_KEY}'::bigint)`);
    }
  } finally {
    await runner.release();
  }
}
