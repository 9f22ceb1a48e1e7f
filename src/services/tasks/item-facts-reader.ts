import type { EntityManager } from 'typeorm';
import { ITEMS_PER_TASK_MAX } from '../../domain/text-rules.js';
import { appendTo } from '../kernel/grouping.js';
import { distinct, num, placeholders, selectRows } from '../kernel/statements.js';

/** What a checklist shows beside one item without listing its rows. */
interface ItemFacts {
  /** Comments on the item. */
  comments: number;
  /** Briefs on the item. */
  briefs: number;
  /** What the item waits for, by its briefs (oldest first) then by its own `after`: each item once (its first mention), at most ITEMS_PER_TASK_MAX. */
  dependsOn: { item: string; reason: string | null }[];
}

/** The note id an edge without a brief sorts as: after every brief's (the largest INTEGER both databases hold). */
const NO_BRIEF = 2_147_483_647;

/**
 * Each wait of the items as rows (itemId, noteId, ord, dep, reason), from the
 * edges every reader of waits reads: a brief's, its note's id, in the order it
 * names them; an item's own `after` (no brief) after every brief.
 */
const DEPENDENCY_ROWS = (count: number) => `SELECT w."itemId" AS "itemId", COALESCE(w."noteId", ${NO_BRIEF}) AS "noteId", w."id" AS "ord",
      w."dependsOnId" AS "dep", w."reason" AS "reason"
    FROM "item_dependencies" w WHERE w."itemId" IN (${placeholders(count)})`;

/**
 * The counts and dependencies a checklist shows for each item of a page
 * (Item.comments and Item.notes asked for their totalCount alone, and
 * Item.dependsOn): one statement for any number of items, reading one row per
 * item and one per distinct dependency. However many briefs an item has, the
 * briefs themselves are not read: the database counts them, and reads their
 * waits from the edges (as blockedBy and ready do), keeping each dependency's
 * first mention (oldest brief, then its place in the brief, then the item's
 * own `after`) and at most ITEMS_PER_TASK_MAX per item.
 */
export class ItemFactsReader {
  constructor(private readonly reader: () => EntityManager) {}

  async factsOfItems(itemIds: readonly number[]): Promise<ItemFacts[]> {
    if (itemIds.length === 0) return [];
    const manager = this.reader();
    const ids = distinct(itemIds);
    const sql = `SELECT f."itemId", f."comments", f."briefs", NULL AS "noteId", NULL AS "ord", NULL AS "dep", NULL AS "reason" FROM (
        SELECT i."id" AS "itemId",
          (SELECT COUNT(*) FROM "comments" c WHERE c."itemId" = i."id") AS "comments",
          (SELECT COUNT(*) FROM "task_note_items" b WHERE b."itemId" = i."id") AS "briefs"
        FROM "items" i WHERE i."id" IN (${placeholders(ids.length)})) f
      UNION ALL
      SELECT d."itemId", NULL, NULL, d."noteId", d."ord", d."dep", d."reason" FROM (
        SELECT u."itemId", u."noteId", u."ord", u."dep", u."reason",
          ROW_NUMBER() OVER (PARTITION BY u."itemId" ORDER BY u."noteId", u."ord") AS "rank"
        FROM (
          SELECT e."itemId", e."noteId", e."ord", e."dep", e."reason",
            ROW_NUMBER() OVER (PARTITION BY e."itemId", e."dep" ORDER BY e."noteId", e."ord") AS "copy"
          FROM (${DEPENDENCY_ROWS(ids.length)}) e) u
        WHERE u."copy" = 1) d
      WHERE d."rank" <= ?`;
    const rows = await selectRows(manager, sql, [...ids, ...ids, ITEMS_PER_TASK_MAX]);
    const counts = new Map<number, { comments: number; briefs: number }>();
    const dependencies = new Map<number, { noteId: number; ord: number; item: string; reason: string | null }[]>();
    for (const [item, comments, briefs, noteId, ord, dep, reason] of rows) {
      const itemId = num(item);
      if (noteId === null) counts.set(itemId, { comments: num(comments), briefs: num(briefs) });
      else if (dep !== null) appendTo(dependencies, itemId, { noteId: num(noteId), ord: num(ord), item: String(dep), reason: reason as string | null });
    }
    return itemIds.map((itemId) => ({
      ...(counts.get(itemId) ?? { comments: 0, briefs: 0 }),
      dependsOn: (dependencies.get(itemId) ?? [])
        .sort((a, b) => a.noteId - b.noteId || a.ord - b.ord)
        .map(({ item, reason }) => ({ item, reason })),
    }));
  }
}
