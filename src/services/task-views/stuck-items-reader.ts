import type { EntityManager } from 'typeorm';
import type { ItemEntity, MemoryEntity } from '../../db/entities/index.js';
import { cleanDomain } from '../../domain/domains.js';
import { STUCK_CURSOR, decodeCursor, pageFrom, pageSize, type Page } from '../../domain/paging.js';
import { scopeCondition } from '../kernel/domain-scope.js';
import { ITEM_WIDTH, itemColumns, itemOf, memoryColumns, memoryOf } from '../kernel/entity-rows.js';
import { num, placeholders, selectRows } from '../kernel/statements.js';

/** One row of the inbox: a stuck item, the task or plan it is in, and who last set its state, when. */
export interface StuckItemRow {
  item: ItemEntity;
  task: MemoryEntity;
  /** When its state was last set (the change log's time), else when the item last changed. */
  since: string;
  /** The session that last set its state; null when a person did, or the change log no longer says. */
  setBy: string | null;
  /** False when the change log no longer holds the change that set it (pruned): who is then unknown. */
  setByKnown: boolean;
}

/**
 * Everything stuck, in one list: every live BLOCKED or FAILED item of every
 * task and every plan (a running session's, a finished one's), newest change
 * first, keyset-paged, with its true count. Read from a partial index of the
 * stuck rows alone (migration 1765600000000), so a page is one statement, its
 * count another, and who set each state a third, whatever the database holds.
 */
export class StuckItemsReader {
  constructor(private readonly reader: () => EntityManager) {}

  async page(input: { domain?: string | null; first?: number | null; after?: string | null }): Promise<Page<StuckItemRow>> {
    const size = pageSize(input.first);
    const key = decodeCursor(input.after, STUCK_CURSOR);
    const domain = input.domain === null || input.domain === undefined ? null : cleanDomain(input.domain);
    const values: unknown[] = [];
    const bind = (value: unknown) => (values.push(value), '?');
    // The plans of sessions have no domain: a domain's inbox is its tasks'.
    const inDomain = domain === null ? '' : ` AND ${scopeCondition('m."domain"', domain, bind)}`;
    const scope = `FROM "items" i JOIN "memories" m ON m."id" = i."taskId" WHERE i."state" IN ('BLOCKED', 'FAILED') AND i."deleted" = false${inDomain}`;
    const countValues = [...values];
    const below = key === null ? '' : ` AND (i."updatedAt" < ${bind(key[0])} OR (i."updatedAt" = ${bind(key[0])} AND i."id" < ${bind(key[1])}))`;
    const manager = this.reader();
    const [rows, [[total]]] = await Promise.all([
      selectRows(manager, `SELECT ${itemColumns('i')}, ${memoryColumns('m')} ${scope}${below} ORDER BY i."updatedAt" DESC, i."id" DESC LIMIT ${size + 1}`, values),
      selectRows(manager, `SELECT COUNT(*) ${scope}`, countValues),
    ]);
    const read = rows.map((row) => ({ item: itemOf(row, 0), task: memoryOf(row, ITEM_WIDTH) }));
    const setters = await this.settersOf(manager, read.slice(0, size).map(({ item }) => item.id));
    const page = read.map(({ item, task }) => {
      const set = setters.get(item.id);
      return { item, task, since: set?.at ?? item.updatedAt, setBy: set?.madeBy ?? null, setByKnown: set !== undefined };
    });
    return pageFrom(page, size, (row) => [row.item.updatedAt, row.item.id], num(total));
  }

  /** The last state change of each item the change log still holds: who made it, and when. */
  private async settersOf(manager: EntityManager, itemIds: readonly number[]): Promise<Map<number, { madeBy: string | null; at: string }>> {
    const setters = new Map<number, { madeBy: string | null; at: string }>();
    if (itemIds.length === 0) return setters;
    const rows = await selectRows(manager,
      `SELECT c."itemId", c."madeBy", c."at" FROM "changes" c WHERE c."itemId" IN (${placeholders(itemIds.length)}) AND c."action" = 'ITEM_STATE' ORDER BY c."id" DESC`,
      itemIds);
    for (const [itemId, madeBy, at] of rows) {
      const id = num(itemId);
      if (!setters.has(id)) setters.set(id, { madeBy: (madeBy as string | null) ?? null, at: at as string });
    }
    return setters;
  }
}
