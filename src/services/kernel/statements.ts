import type { EntityManager } from 'typeorm';

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
  const answer: unknown[] = await manager.query(numbered(sql), parameters as unknown[]);
  // TypeORM answers an UPDATE or DELETE on PostgreSQL as [rows, rowCount], not as its rows (RETURNING).
  const rows = (CHANGES_ROWS.test(sql) ? answer[0] : answer) as Record<string, unknown>[];
  return rows.map((row) => Object.values(row));
}

const CHANGES_ROWS = /^\s*(UPDATE|DELETE)\b/i;

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
  await manager.query(numbered(sql), parameters as unknown[]);
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
