import type { EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ItemLinkEntity, MemoryEntity } from '../../db/entities/index.js';
import { LINKS_PER_ITEM_MAX } from '../../domain/task-rules.js';
import { appendTo } from '../kernel/grouping.js';
import { entityFromRow } from '../kernel/plain-rows.js';

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
    const manager = this.reader();
    const query = manager.createQueryBuilder()
      .select('s."itemId"', 'itemId')
      .addSelect('s."memoryId"', 'memoryId')
      .addSelect('s."running"', 'running');
    for (const column of manager.connection.getMetadata(MemoryEntity).columns) {
      const text = column.databaseName === 'title' || column.databaseName === 'body' || column.databaseName === 'goal';
      const shown = text ? 's."copy" = 1 AND s."running" <= :maxChars' : 's."copy" = 1';
      query.addSelect(`CASE WHEN ${shown} THEN m."${column.databaseName}" END`, `m_${column.databaseName}`);
    }
    // Three levels, one window each: links ranked per item (the bound), each memory's first link (its one copy),
    // then the running sum of the distinct memories' text in link order, from their lengths alone.
    const ranked = (links: SelectQueryBuilder<ObjectLiteral>) => links
      .select('l."itemId"', 'itemId')
      .addSelect('l."memoryId"', 'memoryId')
      .addSelect('ROW_NUMBER() OVER (PARTITION BY l."itemId" ORDER BY l."createdAt", l."memoryId")', 'rn')
      .from(ItemLinkEntity, 'l')
      .where('l."itemId" IN (:...itemIds)', { itemIds: [...new Set(itemIds)] });
    const kept = (links: SelectQueryBuilder<ObjectLiteral>) => links
      .select('r."itemId"', 'itemId')
      .addSelect('r."memoryId"', 'memoryId')
      .addSelect('r."rn"', 'rn')
      .addSelect('ROW_NUMBER() OVER (PARTITION BY r."memoryId" ORDER BY r."itemId", r."rn")', 'copy')
      .from(ranked, 'r')
      .where('r."rn" <= :most', { most: LINKS_PER_ITEM_MAX });
    const sized = (links: SelectQueryBuilder<ObjectLiteral>) => links
      .select('k.*')
      .addSelect(`SUM(CASE WHEN k."copy" = 1 THEN ${TEXT_CHARS} ELSE 0 END) OVER (ORDER BY k."itemId", k."rn" ROWS UNBOUNDED PRECEDING)`, 'running')
      .from(kept, 'k')
      .innerJoin('memories', 't', 't."id" = k."memoryId"');
    const rows: Record<string, unknown>[] = await query
      .from(sized, 's')
      .innerJoin('memories', 'm', 'm."id" = s."memoryId"')
      .setParameter('maxChars', maxChars)
      .orderBy('s."itemId"')
      .addOrderBy('s."rn"')
      .getRawMany();
    const byId = new Map<number, MemoryEntity>();
    const byItem = new Map<number, MemoryEntity[]>();
    let chars = 0;
    for (const row of rows) {
      chars = Number(row.running ?? 0);
      const memoryId = Number(row.memoryId);
      // Rows come in link order, so a memory's first link (the row with its columns) comes before its others.
      if (row.m_id !== null && row.m_id !== undefined) byId.set(memoryId, entityFromRow(manager, MemoryEntity, row, 'm_'));
      const memory = byId.get(memoryId);
      if (memory) appendTo(byItem, Number(row.itemId), memory);
    }
    return { memories: itemIds.map((itemId) => byItem.get(itemId) ?? []), chars };
  }
}
