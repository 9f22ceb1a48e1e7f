import type { EntityManager } from 'typeorm';
import type { DatabaseKind } from './data-source.js';

/**
 * The database's clock as the ISO string every stamp column holds
 * (`2026-12-01T20:49:19.123Z`), written in SQL so a comparison with it runs
 * on the database's time: claims expire by that clock alone, the same for
 * every server process whatever their own clocks say. clock_timestamp(), not
 * now(): a transaction that waited for a lock compares with the time it runs.
 */
export function dbNowSql(kind: DatabaseKind): string {
  return kind === 'postgres'
    ? `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
}

export function kindOf(manager: EntityManager): DatabaseKind {
  return manager.connection.options.type === 'postgres' ? 'postgres' : 'sqlite';
}

/** The database's time now, read once (a write stamps expiries from it). */
export async function readDbNow(manager: EntityManager): Promise<string> {
  const [row] = (await manager.query(`SELECT ${dbNowSql(kindOf(manager))} AS "now"`)) as { now: string }[];
  return row.now;
}

/**
 * SQL for the database's clock as this statement runs, `seconds` (SQL for a
 * whole number, such as a `?`) ahead when given, as a stamp string like
 * dbNowSql's. `clock` names where the time comes from: on PostgreSQL a
 * `clock_timestamp()` read once in the statement (clockRowSql), so two
 * stamps of one row agree; on SQLite 'now', which is one value for the
 * whole statement.
 */
export function dbStampSql(kind: DatabaseKind, clock: string, seconds?: string): string {
  if (kind === 'postgres') {
    const at = seconds ? `(${clock} + CAST(${seconds} AS INTEGER) * INTERVAL '1 second')` : clock;
    return `to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  }
  return seconds ? `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || ${seconds} || ' seconds')` : `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
}

/** A one-row source `t` whose "clock" is the database's time as the statement runs (dbStampSql's `t."clock"`). */
export function clockRowSql(kind: DatabaseKind): string {
  return kind === 'postgres' ? `(SELECT clock_timestamp() AS "clock") t` : `(SELECT 'now' AS "clock") t`;
}
