import fs from 'node:fs';
import path from 'node:path';
import { DataSource, type DataSourceOptions, type Logger } from 'typeorm';
import { ENTITIES } from './entities/index.js';
import { MIGRATIONS } from './migrations/index.js';
import { DEFAULT_POSTGRES_SESSION, postgresSessionOptions, type PostgresSessionSettings } from './postgres-session.js';

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
 * SQLite's `synchronous` on the writer. NORMAL (the default) in WAL mode
 * never corrupts the file and loses nothing when the process dies (kill -9
 * included: every commit is in the WAL before it is acknowledged); a power
 * loss or OS crash may lose the last transactions committed before it, not
 * yet synced. FULL syncs the WAL on every commit, so a power loss loses
 * nothing acknowledged, at a cost per write. TASKBASE_SQLITE_SYNCHRONOUS.
 */
export type SqliteSynchronous = 'normal' | 'full';

/**
 * The options for one connection (SQLite) or pool (PostgreSQL). On SQLite
 * the reader is a second, read-only connection to the same WAL file: it sees
 * only committed rows, never the writer's open transaction. The tail is a
 * third such reader, for the change feed alone (one connection on PostgreSQL).
 */
type ConnectionRole = 'writer' | 'reader' | 'tail';

/** SQLite's own word for a SqliteSynchronous: what every connection that writes the file is set to. */
export function synchronousPragma(synchronous: SqliteSynchronous): 'FULL' | 'NORMAL' {
  return synchronous === 'full' ? 'FULL' : 'NORMAL';
}

/** How one connection is opened, beyond its role. */
export interface ConnectionOptions {
  /** Sees every statement (with its parameters). */
  listener?: QueryListener;
  /** SQLite's durability on the writer; normal by default. */
  synchronous?: SqliteSynchronous;
  /**
   * SQLite's writer leaves checkpoints to a WalCheckpointer (wal-checkpointer.ts)
   * instead of running one inside a commit now and then.
   */
  checkpointsElsewhere?: boolean;
  /**
   * PostgreSQL's per-session timeouts and keepalive (postgres-session.ts);
   * null for none, which only the migrations' connection uses: a migration
   * may rightly run long, and waits for another process's on a lock.
   */
  postgresSession?: PostgresSessionSettings | null;
}

export function dataSourceOptions(url: string, role: ConnectionRole, options: ConnectionOptions = {}): DataSourceOptions {
  const { listener, synchronous = 'normal', checkpointsElsewhere = false, postgresSession = DEFAULT_POSTGRES_SESSION } = options;
  const common = {
    entities: ENTITIES,
    migrations: MIGRATIONS,
    synchronize: false,
    logging: listener ? (['query'] as const) : false,
    logger: listeningLogger(listener),
  };
  if (databaseKind(url) === 'postgres') {
    // pg_stat_activity names each session's server and pool: an operator sees which process holds a lock or an open transaction.
    const extra = { application_name: `taskbase-${process.pid}-${role}`, ...(postgresSession ? postgresSessionOptions(postgresSession) : {}) };
    return { ...common, type: 'postgres', url, poolSize: role === 'tail' ? 1 : 10, extra } as DataSourceOptions;
  }
  const file = sqlitePath(url);
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return {
    ...common,
    type: 'better-sqlite3',
    database: file,
    timeout: 5000,
    readonly: role !== 'writer',
    prepareDatabase: (db: { pragma(sql: string): unknown; prepare(sql: string): unknown }) => {
      if (role === 'writer') {
        db.pragma('journal_mode = WAL');
        db.pragma(`synchronous = ${synchronousPragma(synchronous)}`);
        if (checkpointsElsewhere) db.pragma('wal_autocheckpoint = 0');
        beginImmediately(db);
      }
      reusePreparedStatements(db);
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

/** Statements kept per connection; the server sends a few hundred distinct ones. */
const STATEMENT_CACHE_SIZE = 1_000;

/**
 * TypeORM caches prepared statements per query runner, and a transaction is
 * a new query runner, so every write would prepare each of its statements
 * again (better-sqlite3's Statement constructor is 8.6 % of an updateItem
 * profile without this cache). So the cache is one per connection, least
 * recently used out first. A cached
 * statement is safe to share: the driver is synchronous, and TypeORM only
 * calls all() and run(), which never leave a statement busy.
 */
function reusePreparedStatements(db: { prepare(sql: string): unknown }): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, unknown>();
  db.prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (statement) {
      cache.delete(sql);
    } else {
      statement = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, statement);
    return statement;
  };
}

type EscapeQuery = (sql: string, parameters: Record<string, unknown>, nativeParameters: Record<string, unknown>) => [string, unknown[]];

/**
 * TypeORM's SQLite driver writes number parameters into the SQL text
 * (`WHERE "id" = 241`), so each id is a statement of its own: no prepared
 * statement is ever reused, and every query is parsed and planned again.
 * Handing it integers as BigInt makes it bind them as `?` instead
 * (better-sqlite3 binds a BigInt as an INTEGER, exactly); other numbers
 * keep TypeORM's way.
 */
function bindIntegersAsParameters(source: DataSource): void {
  const driver = source.driver as unknown as { escapeQueryWithParameters: EscapeQuery };
  const escape = driver.escapeQueryWithParameters.bind(driver);
  driver.escapeQueryWithParameters = (sql, parameters, nativeParameters) => {
    if (!parameters) return escape(sql, parameters, nativeParameters);
    const bound: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(parameters)) {
      bound[key] = typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;
    }
    return escape(sql, bound, nativeParameters);
  };
}

export function createDataSource(url: string, role: ConnectionRole, options: ConnectionOptions = {}): DataSource {
  const source = new DataSource(dataSourceOptions(url, role, options));
  if (databaseKind(url) === 'sqlite') bindIntegersAsParameters(source);
  return source;
}
