import type { EntityManager } from 'typeorm';
import type { MemoryEntity } from '../../db/entities/index.js';
import { LINKS_PER_ITEM_MAX } from '../../domain/task-rules.js';
import { appendTo } from '../kernel/grouping.js';
import { MEMORY_COLUMN_NAMES, memoryOf } from '../kernel/entity-rows.js';
import { distinct, num, placeholders, selectRows } from '../kernel/statements.js';
import { nextTurn } from '../kernel/turns.js';

/** What items link to: the memories for each item asked, and how much text they hold. */
interface LinkedMemories {
  /** For each item asked, its linked memories, oldest link first; complete only when `chars` is within the bound asked. */
  memories: MemoryEntity[][];
  /** Characters of text (title, body, goal) the distinct linked memories hold together (as far as they were counted). */
  chars: number;
}

/**
 * Links read by one statement at most. On SQLite a statement runs on the
 * event loop from its first row to its last: 5,000 two-number rows are a few
 * milliseconds, where the 20,000 links of 200 items hold the loop for tens
 * of milliseconds in one go.
 */
const LINKS_AT_ONCE = 5_000;
/** Distinct memories read by one statement at most: their text is up to 40,000 characters each. */
const MEMORIES_AT_ONCE = 250;


/** Memories linked to checklist items (Item.related). */
export class LinkedMemoryReader {
  constructor(private readonly reader: () => EntityManager) {}

  /**
   * For each item, the memories linked to it, oldest link first (at most
   * LINKS_PER_ITEM_MAX each). Two reads, each in statements of bounded size
   * with a turn of the event loop between them (kernel/turns.ts): the links alone (two
   * numbers a row, a keyset page of LINKS_AT_ONCE at a time), then each
   * distinct memory once, however many items link it. A memory's text comes
   * only while the distinct memories' text so far is within `maxChars`
   * (counted a statement at a time): links to more text than an answer may
   * carry read the lengths, never the text, and `chars` says so. A page of ordinary items (a few links
   * each) is one statement of each kind, whatever the number of items.
   */
  async relatedOfItems(itemIds: readonly number[], maxChars: number): Promise<LinkedMemories> {
    if (itemIds.length === 0) return { memories: [], chars: 0 };
    const links = await this.linksOf(distinct(itemIds));
    const order = distinct([...links.values()].flat());
    const byId = new Map<number, MemoryEntity>();
    let chars = 0;
    for (let start = 0; start < order.length; start += MEMORIES_AT_ONCE) {
      if (start > 0) await nextTurn();
      const ids = order.slice(start, start + MEMORIES_AT_ONCE);
      // Past the bound, every later statement reads no text: -1 is below any total.
      const left = chars <= maxChars ? maxChars - chars : -1;
      const rows = await selectRows(this.reader(), memoriesSql(ids.length), [left, left, left, ...ids]);
      for (const row of rows) byId.set(num(row[1]), memoryOf(row, 1));
      // PostgreSQL answers SUM as a string.
      chars += rows.length ? Number(rows[0]![0] ?? 0) : 0;
    }
    return {
      memories: itemIds.map((itemId) => (links.get(itemId) ?? []).flatMap((memoryId) => byId.get(memoryId) ?? [])),
      chars,
    };
  }

  /** Each item's linked memory ids in link order, at most LINKS_PER_ITEM_MAX each: keyset pages of LINKS_AT_ONCE. */
  private async linksOf(itemIds: readonly number[]): Promise<Map<number, number[]>> {
    const links = new Map<number, number[]>();
    let after: readonly unknown[] | null = null;
    for (;;) {
      const rows: unknown[][] = after === null
        ? await selectRows(this.reader(), linksSql(itemIds.length, false), [...itemIds, LINKS_AT_ONCE])
        : await selectRows(this.reader(), linksSql(itemIds.length, true), [...itemIds, after[0], after[0], after[2], after[2], after[1], LINKS_AT_ONCE]);
      for (const row of rows) {
        const itemId = num(row[0]);
        if ((links.get(itemId)?.length ?? 0) < LINKS_PER_ITEM_MAX) appendTo(links, itemId, num(row[1]));
      }
      if (rows.length < LINKS_AT_ONCE) return links;
      after = rows[rows.length - 1]!;
      await nextTurn();
    }
  }
}

/** Texts kept per IN-list length (and kind): a dashboard read asks for its page's links on every request. */
const SQL_KEPT = 500;
const sqlKept = new Map<string, string>();
function kept(key: string, make: () => string): string {
  let sql = sqlKept.get(key);
  if (sql === undefined) {
    if (sqlKept.size >= SQL_KEPT) sqlKept.clear();
    sqlKept.set(key, (sql = make()));
  }
  return sql;
}

/**
 * A page of links of `count` items in link order: item, memory, then the
 * link's time (the keyset's middle key). Parameters: the item ids, with
 * `after` the last row's item twice, time twice and memory, then the limit.
 */
function linksSql(count: number, after: boolean): string {
  return kept(`links:${count}:${after}`, () => {
    const from = after
      ? ' AND (l."itemId" > ? OR (l."itemId" = ? AND (l."createdAt" > ? OR (l."createdAt" = ? AND l."memoryId" > ?))))'
      : '';
    return `SELECT l."itemId", l."memoryId", l."createdAt" FROM "item_links" l WHERE l."itemId" IN (${placeholders(count)})${from} ` +
      'ORDER BY l."itemId" ASC, l."createdAt" ASC, l."memoryId" ASC LIMIT ?';
  });
}

/**
 * `count` memories by id: first the text all of them hold together, then
 * each one's columns (memoryOf's order), its text only when that total is
 * within the bound. Parameters: the bound three times (title, body, goal),
 * then the ids. The total comes from the lengths alone.
 */
function memoriesSql(count: number): string {
  return kept(`memories:${count}`, () => {
    const columns = MEMORY_COLUMN_NAMES.map((name) => (name === 'title' || name === 'body' || name === 'goal'
      ? `CASE WHEN s."total" <= ? THEN m."${name}" END AS "m_${name}"`
      : `m."${name}"`)).join(', ');
    const sized = 'SELECT t."id", SUM(LENGTH(t."title") + LENGTH(t."body") + LENGTH(t."goal")) OVER () AS "total" ' +
      `FROM "memories" t WHERE t."id" IN (${placeholders(count)})`;
    return `SELECT s."total", ${columns} FROM (${sized}) s INNER JOIN "memories" m ON m."id" = s."id"`;
  });
}
