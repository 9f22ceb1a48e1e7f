import type { EntityManager } from 'typeorm';
import type { MemoryEntity } from '../../db/entities/index.js';
import { LINKS_PER_ITEM_MAX } from '../../domain/task-rules.js';
import { appendTo } from '../kernel/grouping.js';
import { MEMORY_COLUMN_NAMES, memoryOf } from '../kernel/entity-rows.js';
import { distinct, placeholders, selectRows } from '../kernel/statements.js';

/** What items link to: the memories for each item asked, and how much text they hold. */
interface LinkedMemories {
  /** For each item asked, its linked memories, oldest link first; complete only when `chars` is within the bound asked. */
  memories: MemoryEntity[][];
  /** Characters of text (title, body, goal) the distinct linked memories hold together. */
  chars: number;
}

/** The text a memory row holds, as the database counts it (characters on both). */
const TEXT_CHARS = 'LENGTH(t."title") + LENGTH(t."body") + LENGTH(t."goal")';

/** Memories linked to checklist items (Item.related). */
export class LinkedMemoryReader {
  constructor(private readonly reader: () => EntityManager) {}

  /**
   * For each item, the memories linked to it, oldest link first: one
   * statement for any number of items. The links are ranked per item in
   * SQL (at most LINKS_PER_ITEM_MAX each); a memory's columns come once,
   * on its first link, however many items link it; and the text comes only
   * while the distinct memories' text so far is within `maxChars` (a
   * running sum of their lengths), so links to more text than an answer may
   * carry read the lengths, never the text. `chars` says which happened.
   */
  async relatedOfItems(itemIds: readonly number[], maxChars: number): Promise<LinkedMemories> {
    if (itemIds.length === 0) return { memories: [], chars: 0 };
    const wanted = distinct(itemIds);
    const rows = await selectRows(this.reader(), relatedSql(wanted.length), [maxChars, maxChars, maxChars, ...wanted, LINKS_PER_ITEM_MAX]);
    const byId = new Map<number, MemoryEntity>();
    const byItem = new Map<number, MemoryEntity[]>();
    let chars = 0;
    for (const row of rows) {
      chars = Number(row[2] ?? 0);
      const memoryId = Number(row[1]);
      // Rows come in link order, so a memory's first link (the row with its columns) comes before its others.
      if (row[3] !== null && row[3] !== undefined) byId.set(memoryId, memoryOf(row, 3));
      const memory = byId.get(memoryId);
      if (memory) appendTo(byItem, Number(row[0]), memory);
    }
    return { memories: itemIds.map((itemId) => byItem.get(itemId) ?? []), chars };
  }
}

/**
 * The statement for `count` items: the item, the memory, the running sum of
 * text, then the memory's columns (memoryOf's order) on its first link only,
 * its text only while the sum is within the bound. Parameters: the bound
 * three times (title, body, goal), the item ids, LINKS_PER_ITEM_MAX. Three
 * levels, one window each: links ranked per item (the bound), each memory's
 * first link (its one copy), then the running sum of the distinct memories'
 * text in link order, from their lengths alone.
 */
function relatedSql(count: number): string {
  let sql = relatedSqlKept.get(count);
  if (sql === undefined) {
    if (relatedSqlKept.size >= RELATED_SQL_KEPT) relatedSqlKept.clear();
    relatedSqlKept.set(count, (sql = relatedSqlFor(count)));
  }
  return sql;
}

/** The text for each IN-list length, made once: a dashboard read asks for its page's links on every request. */
const RELATED_SQL_KEPT = 500;
const relatedSqlKept = new Map<number, string>();

function relatedSqlFor(count: number): string {
  const columns = MEMORY_COLUMN_NAMES.map((name) => {
    const shown = name === 'title' || name === 'body' || name === 'goal' ? 's."copy" = 1 AND s."running" <= ?' : 's."copy" = 1';
    return `CASE WHEN ${shown} THEN m."${name}" END AS "m_${name}"`;
  }).join(', ');
  const ranked = 'SELECT l."itemId", l."memoryId", ROW_NUMBER() OVER (PARTITION BY l."itemId" ORDER BY l."createdAt", l."memoryId") AS "rn" ' +
    `FROM "item_links" l WHERE l."itemId" IN (${placeholders(count)})`;
  const kept = `SELECT r."itemId", r."memoryId", r."rn", ROW_NUMBER() OVER (PARTITION BY r."memoryId" ORDER BY r."itemId", r."rn") AS "copy" FROM (${ranked}) r WHERE r."rn" <= ?`;
  const sized = `SELECT k.*, SUM(CASE WHEN k."copy" = 1 THEN ${TEXT_CHARS} ELSE 0 END) OVER (ORDER BY k."itemId", k."rn" ROWS UNBOUNDED PRECEDING) AS "running" ` +
    `FROM (${kept}) k INNER JOIN "memories" t ON t."id" = k."memoryId"`;
  return `SELECT s."itemId", s."memoryId", s."running", ${columns} FROM (${sized}) s INNER JOIN "memories" m ON m."id" = s."memoryId" ORDER BY s."itemId" ASC, s."rn" ASC`;
}
