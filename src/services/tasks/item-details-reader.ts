import type { EntityManager } from 'typeorm';
import type { MemoryEntity } from '../../db/entities/index.js';
import { distinct, num, placeholders, selectRows } from '../kernel/statements.js';
import type { LinkedMemoryReader } from '../memories/linked-memory-reader.js';

/** What an item has beside its own row: the memories linked to it, and how many briefs, comments and links it has. */
export interface ItemDetails {
  related: MemoryEntity[];
  notes: number;
  comments: number;
  links: number;
}

/**
 * The text the linked memories of one page of items may bring back (titles are
 * what a tool shows of them): past it the reader leaves the text out rather
 * than load it, as it does for GraphQL's Item.related.
 */
const LINKED_TEXT_BUDGET = 4_000_000;

/** Each item's id with how many briefs and comments it has (named apart: PostgreSQL calls both counts "count", and rows arrive keyed by name). */
const COUNTS_OF_ITEMS = (count: number) => `SELECT i."id",
  (SELECT COUNT(*) FROM "task_note_items" ni WHERE ni."itemId" = i."id") AS "notes",
  (SELECT COUNT(*) FROM "comments" c WHERE c."itemId" = i."id") AS "comments"
  FROM "items" i WHERE i."id" IN (${placeholders(count)})`;

/**
 * An item's related memories and counts, as a list of items shows them to an
 * agent (task_read items): two statements for any number of items (the
 * links joined with their memories, and one row of counts per item), never
 * one per item.
 */
export class ItemDetailsReader {
  constructor(
    private readonly reader: () => EntityManager,
    private readonly linked: LinkedMemoryReader,
  ) {}

  async detailsOfItems(itemIds: readonly number[]): Promise<ItemDetails[]> {
    if (itemIds.length === 0) return [];
    const ids = distinct(itemIds);
    const [related, rows] = await Promise.all([
      this.linked.relatedOfItems(itemIds, LINKED_TEXT_BUDGET).then((linked) => linked.memories),
      selectRows(this.reader(), COUNTS_OF_ITEMS(ids.length), ids),
    ]);
    const counts = new Map(rows.map(([id, notes, comments]) => [num(id), { notes: num(notes), comments: num(comments) }]));
    return itemIds.map((itemId, index) => {
      const own = counts.get(itemId) ?? { notes: 0, comments: 0 };
      return { related: related[index]!, ...own, links: related[index]!.length };
    });
  }
}
