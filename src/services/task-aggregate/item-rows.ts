import type { EntityManager } from 'typeorm';
import { ItemEntity } from '../../db/entities/index.js';
import { plainRows } from '../kernel/plain-rows.js';

/** The items with these ids (any order; unknown ids left out), read as plain rows. */
export function itemsWithIds(manager: EntityManager, ids: readonly number[]): Promise<ItemEntity[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return plainRows(manager, manager.createQueryBuilder(ItemEntity, 'i').where('i."id" IN (:...ids)', { ids: [...new Set(ids)] }));
}

/** Every item of these tasks, deleted ones included, each task's in list order, read as plain rows. */
export function itemsOfTaskIds(manager: EntityManager, taskIds: readonly number[]): Promise<ItemEntity[]> {
  if (taskIds.length === 0) return Promise.resolve([]);
  return plainRows(manager, manager.createQueryBuilder(ItemEntity, 'i')
    .where('i."taskId" IN (:...taskIds)', { taskIds: [...new Set(taskIds)] })
    .orderBy('i."position"', 'ASC')
    .addOrderBy('i."id"', 'ASC'));
}
