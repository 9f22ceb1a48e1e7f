import { DomainError } from '../../domain/errors.js';
import { ITEM_LABEL_MAX } from '../../domain/labels.js';
import { diffSnapshots, type Snapshot } from '../../domain/list-diff.js';
import { DEFAULT_PLAN_RULES, type PlanRules } from '../../domain/plan-rules.js';
import type { ItemState } from '../../domain/states.js';
import { checkExpectedVersion, deletedItem, parseId, taskNotFound } from '../../domain/task-rules.js';
import { ItemEntity, MemoryEntity, SessionEntity, TaskEventEntity } from '../../db/entities/index.js';
import { countColumns } from '../../db/task-counts.js';
import type { SearchIndex } from '../search/search-index.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';

/** A task as a mutation changes it: the row and all its items (deleted ones too) in list order. */
export interface TaskAggregate {
  task: MemoryEntity;
  items: ItemEntity[];
  /** Longest item label: 80 on a knowledge-base task, the session's maxTextLength on a plan. */
  labelLimit: number;
  /** A plan's rules (its session's), which every change of the plan obeys; null on a knowledge-base task. */
  rules?: PlanRules | null;
  /** The live list before this change, for the history row. */
  before: Snapshot[];
}

/** The live list as a history row holds it. */
export function snapshotOf(items: readonly ItemEntity[]): Snapshot[] {
  return items.filter((item) => !item.deleted).map((item) => ({ id: String(item.id), text: item.text, state: item.state }));
}

/**
 * Loads a task for change inside the unit of work: on PostgreSQL the row is
 * locked (FOR UPDATE) so concurrent changes queue instead of overwriting; on
 * SQLite the write lock already serialises them. Checks expectedVersion and
 * that a session changes only its own plan.
 */
export async function loadTaskForChange(uow: UnitOfWork, id: string | number, expectedVersion?: number | null): Promise<TaskAggregate> {
  const taskId = parseId(id);
  const query = uow.manager.createQueryBuilder(MemoryEntity, 'm').where('m.id = :taskId', { taskId });
  if (uow.manager.connection.options.type === 'postgres') query.setLock('pessimistic_write');
  const task = taskId === null ? null : await query.getOne();
  if (task?.kind === 'NOTE') {
    throw new DomainError('BAD_USER_INPUT', `Memory ${task.id} is a note, not a task; change it with editNote. Tasks come from createTask.`);
  }
  if (!task) throw taskNotFound(String(id));
  if (task.sessionId && uow.caller.sessionId && task.sessionId !== uow.caller.sessionId) {
    throw new DomainError('FORBIDDEN', `Task ${task.id} is the plan of another session; a session may change only its own plan.`);
  }
  checkExpectedVersion(String(task.id), task.version, expectedVersion);
  uow.touchDomain(task.domain);
  const items = await uow.manager.find(ItemEntity, { where: { taskId: task.id }, order: { position: 'ASC', id: 'ASC' } });
  let rules: PlanRules | null = null;
  if (task.sessionId) {
    const session = await uow.manager.findOneBy(SessionEntity, { id: task.sessionId });
    rules = session?.rules ?? DEFAULT_PLAN_RULES;
  }
  return { task, items, labelLimit: rules?.maxTextLength ?? ITEM_LABEL_MAX, rules, before: snapshotOf(items) };
}

/**
 * A live item of the aggregate by id: NOT_FOUND when it is not this task's
 * (`hint` says what to send instead), DELETED_ITEM when deleted.
 */
export function liveItem(aggregate: TaskAggregate, id: string, hint = "Read the task's items for their ids."): ItemEntity {
  const itemId = parseId(id);
  const item = aggregate.items.find((candidate) => candidate.id === itemId);
  if (!item) throw new DomainError('NOT_FOUND', `Task ${aggregate.task.id} has no item with id "${id}". ${hint}`);
  if (item.deleted) throw deletedItem(String(item.id), item.text);
  return item;
}

/** Inserts new items (in order) at the given positions; returns them with their ids. */
export async function insertItems(
  uow: UnitOfWork,
  taskId: number,
  rows: readonly { text: string; state?: ItemState; position: number; added: boolean; note?: string | null }[],
): Promise<ItemEntity[]> {
  const created: ItemEntity[] = [];
  for (const row of rows) {
    const item = uow.manager.create(ItemEntity, {
      taskId, text: row.text, state: row.state ?? 'PENDING', position: row.position, deleted: false,
      added: row.added, note: row.note ?? null, createdAt: uow.now, updatedAt: uow.now,
    });
    const result = await uow.manager.insert(ItemEntity, item);
    item.id = Number(result.identifiers[0].id);
    created.push(item);
  }
  return created;
}

/** Gives every item the position of its place in `order` (ids), writing only the ones that moved. */
export async function applyOrder(uow: UnitOfWork, items: ItemEntity[], order: readonly string[]): Promise<ItemEntity[]> {
  const byId = new Map(items.map((item) => [String(item.id), item]));
  const ordered = order.map((id) => byId.get(id)!);
  for (const [position, item] of ordered.entries()) {
    if (item.position === position) continue;
    item.position = position;
    await uow.manager.update(ItemEntity, { id: item.id }, { position });
  }
  return ordered;
}

/** The text search sees for a task: its goal and every live item label. */
function searchText(task: MemoryEntity, items: readonly ItemEntity[]): string {
  return [task.goal, ...items.filter((item) => !item.deleted).map((item) => item.text)].join('\n');
}

/**
 * Records a change of a task: bumps its version with a compare-and-set (a
 * concurrent writer that slipped past the lock makes this fail rather than
 * overwrite) and, in the same statement, its counts of live items by state
 * and the state derived from them; writes the history row (list after, and
 * what changed), keeps the search document current and queues the change
 * event. Every change of a task's items ends here, so the counts never
 * disagree with the items.
 */
export async function recordTaskChange(uow: UnitOfWork, search: SearchIndex, aggregate: TaskAggregate, action: string): Promise<void> {
  const { task, items } = aggregate;
  const counts = countColumns(items);
  const result = await uow.manager
    .createQueryBuilder()
    .update(MemoryEntity)
    .set({ version: task.version + 1, updatedAt: uow.now, ...counts })
    .where('id = :id AND version = :version', { id: task.id, version: task.version })
    .execute();
  if (result.affected === 0) checkExpectedVersion(String(task.id), task.version + 1, task.version);
  task.version += 1;
  task.updatedAt = uow.now;
  Object.assign(task, counts);
  const after = snapshotOf(items);
  await uow.manager.insert(TaskEventEntity, {
    taskId: task.id, at: uow.now, action, sessionId: await uow.knownSessionId(), items: after, changes: diffSnapshots(aggregate.before, after),
  });
  if (!task.sessionId) await search.index(uow.manager, { id: task.id, title: task.title, text: searchText(task, items) });
  uow.emit({ entity: 'TASK', id: String(task.id), action });
}

/**
 * A plan changed through the task mutations (the dashboard steering it) is
 * changed like any plan update: it stands again above the chat, and a
 * finished session must pass finishSession again.
 */
export async function markPlanChanged(uow: UnitOfWork, aggregate: TaskAggregate): Promise<void> {
  const sessionId = aggregate.task.sessionId;
  if (!sessionId) return;
  await uow.manager.update(SessionEntity, { id: sessionId }, { planStanding: true, finishedAt: null });
  uow.emit({ entity: 'SESSION', id: sessionId, action: 'PLAN_CHANGED' });
}
