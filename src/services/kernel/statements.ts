import { QueryFailedError, QueryRunnerAlreadyReleasedError, type EntityManager } from 'typeorm';

/**
 * Statements of our own for the hot reads: SQL written once as text with `?`
 * placeholders (numbered `$1…` on PostgreSQL), rows answered as arrays in
 * the select's order, for small typed functions to map (no query builder
 * assembling the SQL on every request, no hydration). On SQLite each text is
 * prepared once per connection and kept (better-sqlite3 compiles on every
 * prepare), read raw; on PostgreSQL it goes through the manager's query
 * runner (the same transaction and pool as everything else). Each run is
 * logged once like any other statement, so the statement counts (tests, the
 * bench) see it.
 */
export async function selectRows(manager: EntityManager, sql: string, parameters: readonly unknown[]): Promise<unknown[][]> {
  const driver = manager.connection.driver;
  if (driver.options.type === 'better-sqlite3') {
    manager.connection.logger.logQuery(sql, parameters as unknown[]);
    const statement = preparedOn((driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection, sql);
    return statement.all(...sqliteValues(parameters));
  }
  return (await onPostgres(manager, sql, parameters)).rows;
}

/**
 * A write of our own (an UPDATE or INSERT that answers no rows) on the same
 * terms as selectRows: prepared once per connection on SQLite, through the
 * manager's query runner on PostgreSQL (the transaction's connection), logged
 * once. A write that must know what it changed says RETURNING and goes
 * through selectRows instead.
 */
export async function runStatement(manager: EntityManager, sql: string, parameters: readonly unknown[]): Promise<void> {
  const driver = manager.connection.driver;
  if (driver.options.type === 'better-sqlite3') {
    manager.connection.logger.logQuery(sql, parameters as unknown[]);
    preparedOn((driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection, sql).run(...sqliteValues(parameters));
    return;
  }
  await onPostgres(manager, sql, parameters);
}

/** A statement of our own with its parameters, held to be sent later (UnitOfWork.writeLast). */
export interface Statement {
  sql: string;
  parameters: readonly unknown[];
}

/** What pg needs of a client or pool to run one statement. */
interface PgQueryable {
  query(config: { name?: string; text: string; values: unknown[]; rowMode: 'array' }): Promise<{ rows: unknown[][] }>;
}
interface PgQueryRunner {
  isReleased: boolean;
  connect(): Promise<PgQueryable>;
}

/**
 * One of our statements on PostgreSQL, through pg itself rather than
 * TypeORM's query runner: on the transaction's client when the manager has
 * one, else on the pool (which takes a client for the statement and gives it
 * back, as TypeORM's runner would). Rows come as arrays (pg's rowMode), and
 * the statement is a named one (see statementName), so each connection
 * parses and plans it once rather than on every run. A driver error is
 * wrapped as TypeORM wraps it (QueryFailedError, the driver's error as
 * driverError), so the unit of work's race check and the UNAVAILABLE check
 * read it alike.
 */
async function onPostgres(manager: EntityManager, sql: string, parameters: readonly unknown[]): Promise<{ rows: unknown[][] }> {
  const text = numbered(sql);
  const values = parameters as unknown[];
  manager.connection.logger.logQuery(text, values);
  const runner = manager.queryRunner as unknown as PgQueryRunner | undefined;
  if (runner?.isReleased) throw new QueryRunnerAlreadyReleasedError();
  try {
    const on: PgQueryable = runner ? await runner.connect() : (manager.connection.driver as unknown as { master: PgQueryable }).master;
    return await on.query({ name: statementName(text), text, values, rowMode: 'array' });
  } catch (error) {
    throw new QueryFailedError(text, values, error as Error);
  }
}

/**
 * Texts given a name, so PostgreSQL keeps each one parsed per connection.
 * Every IN-list length is a text of its own and each connection keeps what
 * it prepared, so past this many the rest run unnamed (parsed each time):
 * the hot statements are the first to be seen.
 */
const NAMED_MAX = 400;
const names = new Map<string, string>();
function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < NAMED_MAX) names.set(text, (name = `tb${names.size + 1}`));
  return name;
}

/** SQLite binds no booleans: 1 and 0, as TypeORM stores them. */
function sqliteValues(parameters: readonly unknown[]): unknown[] {
  return parameters.map((value) => (typeof value === 'boolean' ? Number(value) : value));
}

/** `?, ?, ?` for a list of `count` values (one or more; an empty list matches nothing and is never sent). */
export function placeholders(count: number): string {
  return count === 1 ? '?' : `?${', ?'.repeat(count - 1)}`;
}

/** `(…), (…)`: `count` rows of one `tuple` (its placeholders and literals), for a multi-row VALUES list. */
export function tuples(count: number, tuple: string): string {
  return Array.from({ length: count }, () => `(${tuple})`).join(', ');
}

/** The distinct values of a list, in first-seen order: what an IN list needs. */
export function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** SQLite's 0/1 and PostgreSQL's booleans, read alike. */
export function bool(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/** A number column (PostgreSQL answers bigint counts as strings). */
export function num(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

/** A simple-json column: stored as text on both. */
export function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

const numberedCache = new Map<string, string>();
function numbered(sql: string): string {
  let text = numberedCache.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    if (numberedCache.size >= STATEMENTS_KEPT) numberedCache.clear();
    numberedCache.set(sql, text);
  }
  return text;
}

/** Distinct texts kept per connection: each IN-list length is a text of its own; past this many the cache starts over. */
const STATEMENTS_KEPT = 2000;
const preparedByConnection = new WeakMap<SqliteConnection, Map<string, SqliteStatement>>();
function preparedOn(connection: SqliteConnection, sql: string): SqliteStatement {
  let kept = preparedByConnection.get(connection);
  if (!kept) preparedByConnection.set(connection, (kept = new Map()));
  let statement = kept.get(sql);
  if (!statement) {
    if (kept.size >= STATEMENTS_KEPT) kept.clear();
    // Raw for good: this statement is ours alone (TypeORM prepares its own). A write without RETURNING answers
    // no rows, and better-sqlite3 refuses raw() on it.
    statement = connection.prepare(sql);
    if (statement.reader) statement.raw(true);
    kept.set(sql, statement);
  }
  return statement;
}

interface SqliteStatement {
  readonly reader: boolean;
  raw(on: boolean): SqliteStatement;
  all(...parameters: unknown[]): unknown[][];
  run(...parameters: unknown[]): unknown;
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}
