import fs from 'node:fs';
import path from 'node:path';
import { DataSource, type DataSourceOptions, type Logger } from 'typeorm';
import { ENTITIES } from './entities/index.js';
import { MIGRATIONS } from './migrations/index.js';

export type DatabaseKind = 'sqlite' | 'postgres';

export function databaseKind(url: string): DatabaseKind {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return 'postgres';
  throw new Error(`DATABASE_URL must be sqlite:<path> or postgres://user@host:port/db; got "${url}"`);
}

export function sqlitePath(url: string): string {
  return url.slice('sqlite:'.length);
}

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
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      if (role === 'writer') db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
    },
  } as DataSourceOptions;
}

export function createDataSource(url: string, role: 'writer' | 'reader', listener?: QueryListener): DataSource {
  return new DataSource(dataSourceOptions(url, role, listener));
}
