import { In, type EntityManager } from 'typeorm';
import { ItemLinkEntity, MemoryEntity } from '../../db/entities/index.js';

/** Memories linked to checklist items (Item.related). */
export class LinkedMemoryReader {
  constructor(private readonly reader: () => EntityManager) {}

  /** For each item, the memories linked to it, oldest link first: two statements for any number of items. */
  async relatedOfItems(itemIds: readonly number[]): Promise<MemoryEntity[][]> {
    if (itemIds.length === 0) return [];
    const links = await this.reader().find(ItemLinkEntity, { where: { itemId: In([...itemIds]) }, order: { createdAt: 'ASC', memoryId: 'ASC' } });
    const memoryIds = [...new Set(links.map((link) => link.memoryId))];
    const memories = memoryIds.length ? await this.reader().findBy(MemoryEntity, { id: In(memoryIds) }) : [];
    const byId = new Map(memories.map((memory) => [memory.id, memory]));
    return itemIds.map((itemId) => links.filter((link) => link.itemId === itemId && byId.has(link.memoryId)).map((link) => byId.get(link.memoryId)!));
  }
}
