import type { EntityManager } from 'typeorm';
import { ItemLinkEntity, type MemoryEntity } from '../../db/entities/index.js';
import { LINKS_PER_ITEM_MAX } from '../../domain/task-rules.js';
import { appendTo } from '../kernel/grouping.js';
import { memoriesWithIds } from './memory-reader.js';

/** Items' links, and the text their memories hold: what loading them would bring in, known before it is loaded. */
export interface LinkSet {
  /** The linked memories' ids for each item asked, oldest link first. */
  memoryIds: number[][];
  /** Characters of text (title, body, goal) the distinct linked memories hold together. */
  chars: number;
}

/** Memories linked to checklist items (Item.related). */
export class LinkedMemoryReader {
  constructor(private readonly reader: () => EntityManager) {}

  /**
   * For each item, the ids of the memories linked to it, oldest link first
   * (at most LINKS_PER_ITEM_MAX per item, ranked in SQL), and the size of
   * their text: one statement for any number of items, reading the link
   * table's index and the memories' lengths, never their text.
   */
  async linksOfItems(itemIds: readonly number[]): Promise<LinkSet> {
    if (itemIds.length === 0) return { memoryIds: [], chars: 0 };
    const rows: { itemId: number | string; memoryId: number | string; chars: number | string | null }[] = await this.reader()
      .createQueryBuilder()
      .select('ranked."itemId"', 'itemId')
      .addSelect('ranked."memoryId"', 'memoryId')
      .addSelect('LENGTH(m."title") + LENGTH(m."body") + LENGTH(m."goal")', 'chars')
      .from((links) => links
        .select('l."itemId"', 'itemId')
        .addSelect('l."memoryId"', 'memoryId')
        .addSelect('ROW_NUMBER() OVER (PARTITION BY l."itemId" ORDER BY l."createdAt", l."memoryId")', 'rn')
        .from(ItemLinkEntity, 'l')
        .where('l."itemId" IN (:...itemIds)', { itemIds: [...new Set(itemIds)] }), 'ranked')
      .innerJoin('memories', 'm', 'm."id" = ranked."memoryId"')
      .where('ranked."rn" <= :most', { most: LINKS_PER_ITEM_MAX })
      .orderBy('ranked."itemId"')
      .addOrderBy('ranked."rn"')
      .getRawMany();
    const byItem = new Map<number, number[]>();
    const sizes = new Map<number, number>();
    for (const row of rows) {
      appendTo(byItem, Number(row.itemId), Number(row.memoryId));
      sizes.set(Number(row.memoryId), Number(row.chars ?? 0));
    }
    let chars = 0;
    for (const size of sizes.values()) chars += size;
    return { memoryIds: itemIds.map((itemId) => byItem.get(itemId) ?? []), chars };
  }

  /** The linked memories themselves, each read once however many items link it. */
  memories(ids: readonly number[]): Promise<MemoryEntity[]> {
    return memoriesWithIds(this.reader(), ids);
  }
}
