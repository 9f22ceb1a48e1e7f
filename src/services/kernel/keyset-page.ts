import type { EntityManager } from 'typeorm';
import { appendTo } from './grouping.js';
import { distinct, num, placeholders, selectRows } from './statements.js';
import { ROW_CURSOR, decodeCursor, pageFrom, pageSize, type Page } from '../../domain/paging.js';

/**
 * Where an owner's rows live: the table, its owner column, how to read the
 * owner off a row, and the row's columns as a select list with the typed
 * function that maps them (entity-rows.ts).
 */
export interface OwnedRows<T> {
  table: string;
  owner: string;
  ownerOf: (row: T) => number | null;
  columns: (alias: string) => string;
  width: number;
  rowOf: (row: readonly unknown[], at: number) => T;
}

/**
 * Rows joined to each page row in the same statement (a note's item links):
 * `join` is the JOIN clause on the page row's alias `c`, `select` what it
 * adds (one column), `orderBy` the order within a page row; `read` takes,
 * per statement row, the page row's id and that column (a page row with
 * several joined rows comes once per each).
 */
export interface PageJoin {
  join: string;
  select: string;
  orderBy: string;
  read: (rows: { id: number; joined: unknown }[]) => void;
}

/**
 * One page of rows for each owner (an item or a task), all with the same
 * first/after, whatever the number of owners: the rows ranked within each
 * owner by a window function so each gets its own first `size + 1`. Each
 * row carries its owner's total (a count over the owner's index), so a
 * first page is one statement; an owner with no rows has none. A later page
 * counts in a statement of its own, since an owner past its last row has no
 * row to carry it. `only` narrows the rows (a SQL condition on an alias,
 * given). The keyset bound is written `+r."id"` so no planner reads it as a
 * range of the whole table's ids (SQLite, without statistics, would: a scan
 * of every comment to page one task's); the owner's index answers instead.
 * Fixed SQL text (statements.ts), rows mapped by `rowsOf.rowOf`.
 */
export async function keysetPagesByOwner<T extends { id: number }>(
  manager: EntityManager,
  rowsOf: OwnedRows<T>,
  ownerIds: readonly number[],
  only: ((alias: string) => string) | null,
  first?: number | null,
  after?: string | null,
  join?: PageJoin,
): Promise<Page<T>[]> {
  const { table, owner, ownerOf, columns, width, rowOf } = rowsOf;
  const size = pageSize(first);
  const key = decodeCursor(after, ROW_CURSOR);
  if (ownerIds.length === 0) return [];
  const ids = distinct(ownerIds);
  const narrow = (alias: string) => (only ? ` AND ${only(alias)}` : '');
  const sql = `SELECT ${columns('c')}, (SELECT COUNT(*) FROM "${table}" t WHERE t."${owner}" = c."${owner}"${narrow('t')})${join ? `, ${join.select}` : ''}
    FROM "${table}" c${join ? ` ${join.join}` : ''}
    WHERE c."id" IN (SELECT ranked."id" FROM (
      SELECT r."id", ROW_NUMBER() OVER (PARTITION BY r."${owner}" ORDER BY r."id") AS "rn"
      FROM "${table}" r WHERE r."${owner}" IN (${placeholders(ids.length)}) AND +r."id" > ?${narrow('r')}) ranked
    WHERE ranked."rn" <= ?)
    ORDER BY c."id"${join ? `, ${join.orderBy}` : ''}`;
  const totals = new Map<number, number>();
  if (key) {
    const counts = await selectRows(manager, `SELECT r."${owner}", COUNT(*) FROM "${table}" r WHERE r."${owner}" IN (${placeholders(ids.length)})${narrow('r')} GROUP BY r."${owner}"`, ids);
    for (const [ownerId, total] of counts) totals.set(num(ownerId), num(total));
  }
  const raw = await selectRows(manager, sql, [...ids, key ? Number(key[0]) : 0, size + 1]);
  const rows: T[] = [];
  const joined: { id: number; joined: unknown }[] = [];
  for (const row of raw) {
    const id = num(row[0]);
    // A joined row repeats its page row (ordered by id first): one row per page row.
    if (rows.length === 0 || rows[rows.length - 1].id !== id) {
      const made = rowOf(row, 0);
      rows.push(made);
      const ownerId = ownerOf(made);
      if (!key && ownerId !== null) totals.set(ownerId, num(row[width]));
    }
    if (join) joined.push({ id, joined: row[width + 1] });
  }
  join?.read(joined);
  const byOwner = new Map<number, T[]>();
  for (const row of rows) {
    const ownerId = ownerOf(row);
    if (ownerId !== null) appendTo(byOwner, ownerId, row);
  }
  return ownerIds.map((ownerId) => pageFrom(byOwner.get(ownerId) ?? [], size, (row) => [row.id], totals.get(ownerId) ?? 0));
}

/**
 * One keyset page of a table's rows by id, on fixed statements:
 * the rows `where` keeps (a condition on the alias `c`, with `?` for each of
 * `values`): their count, then `first` rows after the cursor (the last row's
 * id), one more to know whether there is a next page, mapped by
 * `rowsOf.rowOf`. Page 1,000 costs what page 1 costs.
 */
export async function keysetRows<T extends { id: number }>(
  manager: EntityManager,
  rowsOf: Pick<OwnedRows<T>, 'table' | 'columns' | 'rowOf'>,
  where: string,
  values: readonly unknown[],
  direction: 'ASC' | 'DESC',
  first: number | null | undefined,
  after: string | null | undefined,
): Promise<Page<T>> {
  const { table, columns, rowOf } = rowsOf;
  const size = pageSize(first);
  const key = decodeCursor(after, ROW_CURSOR);
  const [[total]] = await selectRows(manager, `SELECT COUNT(*) FROM "${table}" c WHERE ${where}`, values);
  const bound = key ? ` AND c."id" ${direction === 'ASC' ? '>' : '<'} ?` : '';
  const raw = await selectRows(
    manager,
    `SELECT ${columns('c')} FROM "${table}" c WHERE ${where}${bound} ORDER BY c."id" ${direction} LIMIT ?`,
    [...values, ...(key ? [Number(key[0])] : []), size + 1],
  );
  return pageFrom(raw.map((row) => rowOf(row, 0)), size, (row) => [row.id], num(total));
}
