import { In, MoreThanOrEqual } from 'typeorm';
import { parseRefs } from '../../domain/refs.js';
import { taskNoteTexts } from '../../domain/briefs.js';
import { CommentEntity, ItemEntity, ItemLinkEntity, MemoryEntity, TaskNoteEntity, TaskNoteItemEntity } from '../../db/entities/index.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import type { TaskAggregate } from '../task-aggregate/task-store.js';

/** Deleted steps a plan keeps, most recently deleted first. */
const PLAN_DELETED_KEPT = 100;
/** Purging starts once a plan holds more deleted steps than this, so it runs every few rewrites, not on each one. */
const PLAN_DELETED_PURGE_AT = 2 * PLAN_DELETED_KEPT;

/**
 * A plan rewritten whole again and again (writeTodos, setPlan) leaves a
 * deleted row per step it drops; unbounded, they slow every later write of
 * the plan, which loads them all. So a plan keeps its PLAN_DELETED_KEPT most
 * recently deleted steps and purges older ones once it holds more than
 * PLAN_DELETED_PURGE_AT. History keeps what they were: each history row holds
 * its own list-after and changes.
 *
 * A deleted step stays while anything still points at it: a comment on it,
 * a brief on it, a link from it, a [[#id]] in the plan's own free text (step
 * notes, comments, task notes), or in a note (a note may cite any item).
 * Knowledge-base tasks keep every deleted item: their ids are cited widely.
 * Positions are closed up afterwards, so new steps go after the last one.
 */
export async function purgeDeletedSteps(uow: UnitOfWork, aggregate: TaskAggregate): Promise<void> {
  if (!aggregate.task.sessionId) return;
  const deleted = aggregate.items.filter((item) => item.deleted);
  if (deleted.length <= PLAN_DELETED_PURGE_AT) return;
  const oldestFirst = [...deleted].sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.id - b.id));
  const candidates = oldestFirst.slice(0, deleted.length - PLAN_DELETED_KEPT);
  const pointedAt = await stillPointedAt(uow, aggregate, candidates);
  const purge = candidates.filter((item) => !pointedAt.has(item.id)).map((item) => item.id);
  if (purge.length === 0) return;
  await uow.manager.delete(ItemEntity, { id: In(purge) });
  const gone = new Set(purge);
  aggregate.items = aggregate.items.filter((item) => !gone.has(item.id));
  for (const [position, item] of aggregate.items.entries()) {
    if (item.position === position) continue;
    item.position = position;
    await uow.manager.update(ItemEntity, { id: item.id }, { position });
  }
}

/** Of these deleted steps, the ids something still points at. */
async function stillPointedAt(uow: UnitOfWork, aggregate: TaskAggregate, candidates: readonly ItemEntity[]): Promise<Set<number>> {
  const { manager } = uow;
  const ids = candidates.map((item) => item.id);
  const taskId = aggregate.task.id;
  const kept = new Set<number>();
  const cite = (text: string | null | undefined) => {
    if (text) for (const id of parseRefs(text)) kept.add(Number(id));
  };
  for (const item of aggregate.items) cite(item.note);
  for (const comment of await manager.findBy(CommentEntity, { taskId })) {
    if (comment.itemId !== null) kept.add(comment.itemId);
    cite(comment.body);
  }
  // A brief's dependencies read as [[#id]] tokens here, so what it waits for is kept too.
  for (const note of await manager.findBy(TaskNoteEntity, { taskId })) for (const text of taskNoteTexts(note)) cite(text);
  for (const link of await manager.findBy(TaskNoteItemEntity, { itemId: In(ids) })) kept.add(link.itemId);
  for (const link of await manager.findBy(ItemLinkEntity, { itemId: In(ids) })) kept.add(link.itemId);
  // A note citing a step was written after the step was: only notes changed since the oldest candidate can.
  const since = candidates.reduce((oldest, item) => (item.createdAt < oldest ? item.createdAt : oldest), candidates[0]!.createdAt);
  const notes = await manager
    .createQueryBuilder(MemoryEntity, 'm')
    .select(['m.id', 'm.body'])
    .where({ kind: 'NOTE', updatedAt: MoreThanOrEqual(since) })
    .andWhere(`m.body LIKE '%[[#%'`)
    .getMany();
  for (const note of notes) cite(note.body);
  return kept;
}
