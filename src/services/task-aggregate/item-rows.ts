import type { EntityManager } from 'typeorm';
import type { ItemEntity } from '../../db/entities/index.js';
import { itemColumns, itemOf } from '../kernel/entity-rows.js';
import { distinct, placeholders, selectRows } from '../kernel/statements.js';

// Item rows by id and by task, as statements of our own (kernel/statements.ts) mapped by entity-rows.ts.
const ITEMS = `SELECT ${itemColumns('i')} FROM "items" i`;
const IN_LIST_ORDER = 'ORDER BY i."position" ASC, i."id" ASC';

/** The items with these ids (any order; unknown ids left out). */
export async function itemsWithIds(manager: EntityManager, ids: readonly number[]): Promise<ItemEntity[]> {
  if (ids.length === 0) return [];
  const wanted = distinct(ids);
  return (await selectRows(manager, `${ITEMS} WHERE i."id" IN (${placeholders(wanted.length)})`, wanted)).map((row) => itemOf(row));
}

/** Every item of these tasks, deleted ones included, each task's in list order. */
export async function itemsOfTaskIds(manager: EntityManager, taskIds: readonly number[]): Promise<ItemEntity[]> {
  if (taskIds.length === 0) return [];
  const tasks = distinct(taskIds);
  return (await selectRows(manager, `${ITEMS} WHERE i."taskId" IN (${placeholders(tasks.length)}) ${IN_LIST_ORDER}`, tasks)).map((row) => itemOf(row));
}
