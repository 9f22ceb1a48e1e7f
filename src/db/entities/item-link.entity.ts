import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A memory linked to one item (Item.related). */
@Entity('item_links')
@Index('idx_item_links_memory', ['memoryId'])
export class ItemLinkEntity {
  @PrimaryColumn({ type: 'integer' })
  itemId: number;

  @PrimaryColumn({ type: 'integer' })
  memoryId: number;

  @Column({ type: 'varchar', length: 24 })
  createdAt: string;
}
