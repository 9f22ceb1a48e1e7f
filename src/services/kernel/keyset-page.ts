import type { EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { appendTo } from './grouping.js';
import { ROW_CURSOR, decodeCursor, pageFrom, pageSize, type Page } from '../../domain/paging.js';

/**
 * One keyset page of `query` ordered by its rows' id: the total count, then
 * `first` rows after the cursor (the last row's id), one more to know whether
 * there is a next page. `column` is the id column as the query names it;
 * `read` runs the page's query (TypeORM's getMany unless told).
 * Page 1,000 costs what page 1 costs.
 */
export async function keysetPage<T extends { id: number }>(
  query: SelectQueryBuilder<T>,
  column: string,
  direction: 'ASC' | 'DESC',
  first: number | null | undefined,
  after: string | null | undefined,
  read: (query: SelectQueryBuilder<T>) => Promise<T[]> = (q) => q.getMany(),
): Promise<Page<T>> {
  const size = pageSize(first);
  const key = decodeCursor(after, ROW_CURSOR);
  const totalCount = await query.clone().getCount();
  if (key) query.andWhere(`${column} ${direction === 'ASC' ? '>' : '<'} :keysetAfter`, { keysetAfter: Number(key[0]) });
  const rows = await read(query.orderBy(column, direction).limit(size + 1));
  return pageFrom(rows, size, (row) => [row.id], totalCount);
}

/** Where an owner's rows live: the table, its owner column, and how to read the owner off a row. */
interface OwnedRows<T> {
  entity: new () => T;
  table: string;
  owner: string;
  ownerOf: (row: T) => number | null;
}

/**
 * Rows joined to each page row in the same statement (a note's item links):
 * `add` joins and selects them on the page row's alias `c`, `read` takes the
 * raw rows (one per joined row; a page row with several comes once per each).
 */
export interface PageJoin {
  add: (query: SelectQueryBuilder<ObjectLiteral>) => void;
  read: (raw: Record<string, unknown>[]) => void;
}

/**
 * One page of rows for each owner (an item or a task), all with the same
 * first/after, whatever the number of owners: the rows ranked within each
 * owner by a window function so each gets its own first `size + 1`. On a
 * first page each row carries its owner's total (a count over the owner's
 * index), so the page is one statement; an owner with no rows has none. A
 * later page counts in a statement of its own, since an owner past its last
 * row has no row to carry it. `only` narrows the rows (a SQL condition on
 * an alias, given). The keyset bound is written `+r."id"` so no planner
 * reads it as a range of the whole table's ids (SQLite did, without
 * statistics: a scan of every comment to page one task's); the owner's
 * index answers instead.
 */
export async function keysetPagesByOwner<T extends ObjectLiteral & { id: number }>(
  manager: EntityManager,
  rowsOf: OwnedRows<T>,
  ownerIds: readonly number[],
  only: ((alias: string) => string) | null,
  first?: number | null,
  after?: string | null,
  join?: PageJoin,
): Promise<Page<T>[]> {
  const { entity, table, owner, ownerOf } = rowsOf;
  const size = pageSize(first);
  const key = decodeCursor(after, ROW_CURSOR);
  if (ownerIds.length === 0) return [];
  const ids = [...new Set(ownerIds)];
  const narrow = (alias: string) => (only ? ` AND ${only(alias)}` : '');
  const query = manager
    .createQueryBuilder(entity, 'c')
    .where(
      `c."id" IN (SELECT ranked."id" FROM (
        SELECT r."id", ROW_NUMBER() OVER (PARTITION BY r."${owner}" ORDER BY r."id") AS "rn"
        FROM "${table}" r WHERE r."${owner}" IN (:...ids) AND +r."id" > :after${narrow('r')}) ranked
      WHERE ranked."rn" <= :limit)`,
      { ids, after: key ? Number(key[0]) : 0, limit: size + 1 },
    )
    .orderBy('c."id"', 'ASC');
  join?.add(query as unknown as SelectQueryBuilder<ObjectLiteral>);
  const totals = new Map<number, number>();
  let rows: T[];
  if (key) {
    const countQuery = manager
      .createQueryBuilder(entity, 'r')
      .select(`r."${owner}"`, 'owner')
      .addSelect('COUNT(*)', 'total')
      .where(`r."${owner}" IN (:...ids)`, { ids })
      .groupBy(`r."${owner}"`);
    if (only) countQuery.andWhere(only('r'));
    const counts: { owner: number | string; total: number | string }[] = await countQuery.getRawMany();
    for (const row of counts) totals.set(Number(row.owner), Number(row.total));
    if (join) {
      const { entities, raw } = await query.getRawAndEntities();
      join.read(raw);
      rows = entities;
    } else {
      rows = await query.getMany();
    }
  } else {
    const { entities, raw } = await query
      .addSelect(`(SELECT COUNT(*) FROM "${table}" t WHERE t."${owner}" = c."${owner}"${narrow('t')})`, 'ownerTotal')
      .getRawAndEntities();
    for (const row of raw as { ownerTotal: number | string }[]) {
      const ownerId = Number((row as Record<string, unknown>)[`c_${owner}`]);
      totals.set(ownerId, Number(row.ownerTotal));
    }
    join?.read(raw);
    rows = entities;
  }
  const byOwner = new Map<number, T[]>();
  for (const row of rows) {
    const ownerId = ownerOf(row);
    if (ownerId !== null) appendTo(byOwner, ownerId, row);
  }
  return ownerIds.map((ownerId) => pageFrom(byOwner.get(ownerId) ?? [], size, (row) => [row.id], totals.get(ownerId) ?? 0));
}
