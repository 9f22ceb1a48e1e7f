import fs from 'node:fs';
import path from 'node:path';
import { DataSource, type DataSourceOptions, type Logger } from 'typeorm';
import { ENTITIES } from './entities/index.js';
import { MIGRATIONS } from './migrations/index.js';

import { databaseKind, sqlitePath } from './database-url.js';

export { databaseKind, sqlitePath, type DatabaseKind } from './database-url.js';

/** Counts or logs each statement (with its parameters); used by tests that check a query's SQL cost and plan. */
export type QueryListener = (sql: string, parameters?: readonly unknown[]) => void;

function listeningLogger(listener: QueryListener | undefined): Logger | undefined {
  if (!listener) return undefined;
  const quiet = () => undefined;
  return {
    logQuery: (sql: string, parameters?: unknown[]) => listener(sql, parameters),
    logQueryError: quiet, logQuerySlow: quiet, logSchemaBuild: quiet, logMigration: quiet, log: quiet,
  };
}

/**
 * The options for one connection (SQLite) or pool (PostgreSQL). On SQLite
 * the reader is a second, read-only connection to the same WAL file: it sees
 * only committed rows, never the writer's open transaction.
 */
export function dataSourceOptions(url: string, role: 'writer' | 'reader', listener?: QueryListener): DataSourceOptions {
  const common = {
    entities: ENTITIES,
    migrations: MIGRATIONS,
    synchronize: false,
    logging: listener ? (['query'] as const) : false,
    logger: listeningLogger(listener),
  };
  if (databaseKind(url) === 'postgres') {
    return { ...common, type: 'postgres', url, poolSize: 10 } as DataSourceOptions;
  }
  const file = sqlitePath(url);
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: file,
    timeout: 5000,
    readonly: role === 'reader',
    prepareDatabase: (db: { pragma(sql: string): unknown; prepare(sql: string): unknown }) => {
      if (role === 'writer') {
        db.pragma('journal_mode = WAL');
        beginImmediately(db);
      }
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
    },
  } as DataSourceOptions;
}

/**
 * TypeORM begins every transaction DEFERRED. A deferred transaction that
 * reads and then writes, when another process (the CLI, a seed) wrote in
 * between, fails at once with SQLITE_BUSY_SNAPSHOT: SQLite cannot wait for
 * a snapshot that is already stale. BEGIN IMMEDIATE takes the write lock up
 * front, where the busy timeout is honoured, so writers queue instead.
 */
function beginImmediately(db: { prepare(sql: string): unknown }): void {
  const prepare = db.prepare.bind(db);
  db.prepare = (sql: string) => prepare(sql === 'BEGIN TRANSACTION' ? 'BEGIN IMMEDIATE TRANSACTION' : sql);
}

export function createDataSource(url: string, role: 'writer' | 'reader', listener?: QueryListener): DataSource {
  return new DataSource(dataSourceOptions(url, role, listener));
}
