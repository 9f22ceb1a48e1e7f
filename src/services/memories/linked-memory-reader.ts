import type { EntityManager } from 'typeorm';
import { ItemLinkEntity, MemoryEntity } from '../../db/entities/index.js';
import { appendTo } from '../kernel/grouping.js';

/** Memories linked to checklist items (Item.related). */
export class LinkedMemoryReader {
  constructor(private readonly reader: () => EntityManager) {}

  /** For each item, the memories linked to it, oldest link first: one statement (links joined with memories) for any number of items. */
  async relatedOfItems(itemIds: readonly number[]): Promise<MemoryEntity[][]> {
    if (itemIds.length === 0) return [];
    const { entities, raw } = await this.reader()
      .createQueryBuilder(MemoryEntity, 'm')
      .innerJoin(ItemLinkEntity, 'l', 'l."memoryId" = m."id"')
      .addSelect('l."itemId"', 'linkedItem')
      .where('l."itemId" IN (:...itemIds)', { itemIds: [...new Set(itemIds)] })
      .orderBy('l."createdAt"', 'ASC')
      .addOrderBy('l."memoryId"', 'ASC')
      .getRawAndEntities();
    const byId = new Map(entities.map((memory) => [memory.id, memory]));
    const byItem = new Map<number, MemoryEntity[]>();
    for (const row of raw as { m_id: number | string; linkedItem: number | string }[]) {
      const memory = byId.get(Number(row.m_id));
      if (!memory) continue;
      appendTo(byItem, Number(row.linkedItem), memory);
    }
    return itemIds.map((itemId) => byItem.get(itemId) ?? []);
  }
}
