import type { EntityManager } from 'typeorm';
import type { ItemEntity, MemoryEntity } from '../../db/entities/index.js';
import type { FenceVerdict } from '../../domain/claims.js';
import { itemColumnAt, itemColumns, itemOf, ITEM_WIDTH, memoryColumns, memoryOf, MEMORY_WIDTH } from '../kernel/entity-rows.js';
import { num, selectRows } from '../kernel/statements.js';

/**
 * A task as an agent's tool shows it: its row (the counts it keeps give the
 * state and progress) and its items in list order. `all` holds every item,
 * deleted ones too, when one task is read whole or a mutation answers with
 * what it changed; in a listing, the live items and only those deleted ones
 * the goal cites (what rendering it needs).
 */
export interface TaskView {
  task: MemoryEntity;
  all: ItemEntity[];
  live: ItemEntity[];
}

/** The view of a task and every item it has (in list order, deleted ones too): `live` is the same objects, the deleted left out. */
export function taskViewOf(task: MemoryEntity, items: ItemEntity[]): TaskView {
  return { task, all: items, live: items.filter((item) => !item.deleted) };
}

/**
 * A task and every item, read inside the unit of work: what an idempotent
 * retry answers with (the task as it stands, like the first call's answer
 * showed it then). Null when the task has since been deleted.
 */
export async function taskViewIn(manager: EntityManager, taskId: number): Promise<TaskView | null> {
  const rows = await selectRows(manager, TASK_VIEW, [taskId, taskId]);
  if (rows.length === 0 || num(rows[0][0]) !== 0) return null;
  return taskViewOf(memoryOf(rows[0], 1), rows.slice(1).map((row) => itemOf(row, 1 + MEMORY_WIDTH)));
}

/**
 * The task's row, then its items in list order, in one round trip: a part number, the memory's columns and the
 * item's, each NULL where the other part's are, so the task's row (its body, its goal) comes once, not with every item.
 * The first part names the columns, each a name of its own (PostgreSQL's rows come keyed by name).
 */
const TASK_VIEW = `SELECT 0 AS "part", ${memoryColumns('m')}, ${Array.from({ length: ITEM_WIDTH }, (_, i) => `NULL AS "item${i}"`).join(', ')}
  FROM "memories" m WHERE m."id" = ?
  UNION ALL SELECT 1, ${'NULL, '.repeat(MEMORY_WIDTH)}${itemColumns('i')} FROM "items" i WHERE i."taskId" = ?
  ORDER BY 1, ${2 + MEMORY_WIDTH + itemColumnAt('position')}, ${2 + MEMORY_WIDTH + itemColumnAt('id')}`;

/**
 * An item after updateItem, and its task with every item as the tools show it, from the same transaction:
 * what the tasks service answers, and what claimNext's finish settles the held item with.
 */
export interface ItemChanged {
  item: ItemEntity;
  /** Every item of its task after the change, deleted ones too, in list order. */
  items: ItemEntity[];
  view: TaskView;
  /** What the claims fence let through: the caller's own claim had lapsed, or a forced change overrode another's. */
  fence: FenceVerdict;
}
