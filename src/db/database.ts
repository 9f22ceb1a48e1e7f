import type { DataSource, EntityManager } from 'typeorm';
import type Sqlite from 'better-sqlite3';
import { createDataSource, databaseKind, sqlitePath, type DatabaseKind, type QueryListener, type SqliteSynchronous } from './data-source.js';
import { DatabaseHealth, type HealthReport } from './database-health.js';
import { migrateExclusively } from './migration-lock.js';
import type { PostgresSessionSettings } from './postgres-session.js';
import { rederiveTaskStates } from './task-counts.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { WriteLock } from './write-lock.js';

export interface OpenOptions {
  /** Sees every statement of the read connection (tests count them). */
  onReadQuery?: QueryListener;
  /** Sees every statement of both connections (the bench's statement counter). */
  onQuery?: QueryListener;
  /** SQLite's durability on the writer (see SqliteSynchronous); default normal. */
  synchronous?: SqliteSynchronous;
  /**
   * On a SQLite file, WAL checkpoints run in a worker thread (wal-checkpointer.ts)
   * rather than inside a commit on the event loop: the server's choice; a CLI
   * command, writing a few rows, leaves them to SQLite. `walLimitBytes`: how
   * large the WAL may grow under writes that never pause before they are held
   * for a moment so that it starts over (TASKBASE_SQLITE_WAL_LIMIT_MB).
   */
  checkpointsInBackground?: { walLimitBytes: number };
  /** Hears why background checkpoints stopped (the writer then checkpoints for itself again). */
  onCheckpointFailure?: (reason: string) => void;
  /** Hears, at most once a minute, that the WAL passed its limit but another connection kept it from starting over. */
  onWalBlocked?: () => void;
  /** PostgreSQL's per-session timeouts and keepalive (postgres-session.ts); its defaults when not given. */
  postgresSession?: PostgresSessionSettings;
}

/**
 * Migrates, then re-derives the tasks' kept states, on `writer` (SQLite: the
 * file's one writer) or, when null, on a PostgreSQL connection of its own
 * without the session timeouts: a migration over a large table may rightly
 * take longer than a statement may, and a server starting beside another
 * waits on the migration lock for as long as the other migrates.
 */
async function migrateAndRederive(writer: DataSource | null, url: string): Promise<string[]> {
  const source = writer ?? createDataSource(url, 'writer', { postgresSession: null });
  if (!writer) await source.initialize();
  try {
    const applied = await migrateExclusively(source);
    await source.transaction((manager) => rederiveTaskStates(manager));
    return applied;
  } finally {
    if (!writer) await source.destroy();
  }
}

/**
 * The storage handle the services use: `transaction` for writes (one per
 * mutation; on SQLite behind the process-wide write lock), `reader` for
 * queries (on SQLite a separate read-only connection, so no request ever
 * reads another's uncommitted rows).
 */
export class Database {
  private readonly lock = new WriteLock();
  private tailSource?: Promise<DataSource>;
  private checkpointer?: WalCheckpointer;
  private readonly health: DatabaseHealth;

  private constructor(
    readonly kind: DatabaseKind,
    private readonly url: string,
    private readonly writer: DataSource,
    private readonly readerSource: DataSource,
    /** The SQLite file on disk, or null (PostgreSQL, in memory). */
    sqliteFile: string | null,
    /** The migrations this open applied (none when the database was up to date), oldest first. */
    readonly migrated: readonly string[],
  ) {
    this.health = new DatabaseHealth(sqliteFile);
  }

  static async open(url: string, options: OpenOptions = {}): Promise<Database> {
    const kind = databaseKind(url);
    // The SQLite file on disk, if any (PostgreSQL and an in-memory database have none): /healthz looks at its disk,
    // and a worker checkpoints its WAL when asked to.
    const path = kind === 'sqlite' ? sqlitePath(url) : null;
    const file = path !== null && path !== ':memory:' ? path : null;
    const checkpointed = options.checkpointsInBackground ? file : null;
    const writer = createDataSource(url, 'writer', {
      listener: options.onQuery, synchronous: options.synchronous, checkpointsElsewhere: checkpointed !== null, postgresSession: options.postgresSession,
    });
    await writer.initialize();
    const migrated = await migrateAndRederive(kind === 'postgres' ? null : writer, url);
    // A reader of its own on both: on PostgreSQL a separate pool, so writers queued on a hot row's lock cannot starve reads of connections.
    const onRead = options.onReadQuery && options.onQuery
      ? (sql: string, parameters?: readonly unknown[]) => { options.onReadQuery!(sql, parameters); options.onQuery!(sql, parameters); }
      : options.onReadQuery ?? options.onQuery;
    const reader = createDataSource(url, 'reader', { listener: onRead });
    await reader.initialize();
    const database = new Database(kind, url, writer, reader, file, migrated);
    if (options.checkpointsInBackground && checkpointed !== null) {
      database.checkpointer = WalCheckpointer.start({
        file: checkpointed,
        synchronous: options.synchronous ?? 'normal',
        limitBytes: options.checkpointsInBackground.walLimitBytes,
        holdWrites: (work) => database.lock.run(work, true),
        onBlocked: options.onWalBlocked,
        onFailure: (reason) => {
          // Checkpoints go back inside the writer's commits, where SQLite runs them by itself.
          options.onCheckpointFailure?.(reason);
          if (writer.isInitialized) void writer.query('PRAGMA wal_autocheckpoint = 1000').catch(() => undefined);
        },
      });
    }
    return database;
  }

  get reader(): EntityManager {
    return this.readerSource.manager;
  }

  /**
   * A read connection of its own for the change feed, opened on first use (a
   * CLI command never needs it): its polls never count as, or wait behind, a
   * request's reads, and like the reader it sees only committed rows.
   */
  async tail(): Promise<EntityManager> {
    this.tailSource ??= (async () => {
      const source = createDataSource(this.url, 'tail');
      await source.initialize();
      return source;
    })();
    return (await this.tailSource).manager;
  }

  /**
   * Runs `work` in one transaction: all of it commits or none of it does.
   * On SQLite the transaction holds the write lock from begin to commit.
   */
  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const run = async () => {
      if (this.kind === 'sqlite') this.startClean();
      try {
        const result = await this.writer.transaction((manager) => work(manager));
        this.health.committed();
        return result;
      } catch (error) {
        if (this.kind === 'sqlite') this.startClean();
        this.health.failed(error);
        throw error;
      }
    };
    return this.kind === 'sqlite' ? this.lock.run(run) : run();
  }

  /** What the writes have shown about the database (a full disk, a damaged file), for /healthz. */
  healthReport(): HealthReport {
    return this.health.report();
  }

  /**
   * Leaves SQLite's one connection with no transaction open, in SQLite and
   * in TypeORM's bookkeeping, before a write and after a failed one. A
   * COMMIT that fails (SQLITE_FULL on a full disk) leaves SQLite's
   * transaction open, and TypeORM's one query runner still counting it:
   * the next write would then start a SAVEPOINT inside that transaction and
   * "commit" by releasing it, so it would be answered as written and never
   * reach the file. Rolling back here means a write is acknowledged only
   * after its own COMMIT returned.
   */
  private startClean(): void {
    const driver = this.writer.driver as unknown as {
      databaseConnection?: Sqlite.Database;
      queryRunner?: { isTransactionActive: boolean; transactionDepth: number };
    };
    const connection = driver.databaseConnection;
    if (connection?.inTransaction) connection.exec('ROLLBACK');
    const runner = driver.queryRunner;
    if (runner) {
      runner.isTransactionActive = false;
      runner.transactionDepth = 0;
    }
  }

  async close(): Promise<void> {
    await this.checkpointer?.stop();
    const tail = await this.tailSource?.catch(() => undefined);
    if (tail?.isInitialized) await tail.destroy();
    if (this.readerSource !== this.writer && this.readerSource.isInitialized) await this.readerSource.destroy();
    if (this.writer.isInitialized) await this.writer.destroy();
  }
}
