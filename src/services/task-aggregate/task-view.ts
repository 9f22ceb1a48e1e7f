import type { EntityManager } from 'typeorm';
import { MemoryEntity, type ItemEntity } from '../../db/entities/index.js';
import type { FenceVerdict } from '../../domain/claims.js';
import { itemsOfTaskIds } from './item-rows.js';

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
  const task = await manager.findOneBy(MemoryEntity, { id: taskId });
  return task && taskViewOf(task, await itemsOfTaskIds(manager, [task.id]));
}

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
