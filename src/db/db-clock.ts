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
