import type { EntityManager } from 'typeorm';
import type { ClaimEntity, ItemEntity, MemoryEntity, SessionEntity } from '../../db/entities/index.js';
import { parseRefs } from '../../domain/refs.js';
import type { ClaimReader } from '../claims/claim-reader.js';
import { memoriesWithIds } from '../memories/memory-reader.js';
import type { SessionReader } from '../sessions/session-reader.js';
import type { ItemDetails, ItemDetailsReader } from '../tasks/item-details-reader.js';
import { itemsOfTaskIds, itemsWithIds } from '../task-aggregate/item-rows.js';
import { taskViewOf, type TaskView } from '../task-aggregate/task-view.js';
import { liveItemsOfTaskIds } from '../tasks/task-reader.js';
import { parseId } from '../../domain/task-rules.js';

/** What an item shows beside its own row: its related memories and counts, who claims it, and what it waits for. */
export interface ShownItem extends ItemDetails {
  claim: ClaimEntity | null;
  /** The ids of the items it waits for (its briefs' depends_on), in the order the briefs name them. */
  blockedBy: number[];
}

/** A session and its plan as the plan tools show it; plan null before the first write or after clearPlan. */
export interface PlanView {
  session: SessionEntity;
  /** Every item of the plan, deleted ones too, in list order. */
  all: ItemEntity[];
  /** Live steps, in list order. */
  steps: ItemEntity[];
}

/**
 * The one batched read behind "a task or plan as a tool shows it": a fixed
 * few statements whatever the number of tasks, items, links or claims, as
 * GraphQL's DataLoaders read the same rows (one task whole: two; a listing:
 * one for the items of every task, one more only when goals cite deleted
 * items; the details of any number of items: four, run side by side).
 */
export class TaskViewReader {
  constructor(
    private readonly reader: () => EntityManager,
    private readonly details: ItemDetailsReader,
    private readonly claims: ClaimReader,
    private readonly sessions: SessionReader,
  ) {}

  /** The memory a uid names (null when none) and, when it is a task, the task with every item. */
  async memory(uid: string): Promise<{ memory: MemoryEntity | null; task: TaskView | null }> {
    const id = parseId(uid);
    const [memory] = id === null ? [] : await memoriesWithIds(this.reader(), [id]);
    if (!memory) return { memory: null, task: null };
    if (memory.kind !== 'TASK') return { memory, task: null };
    return { memory, task: taskViewOf(memory, await itemsOfTaskIds(this.reader(), [memory.id])) };
  }

  /** Tasks already read (a listing's rows), each with its live items and the deleted ones its goal cites. */
  async listed(tasks: readonly MemoryEntity[]): Promise<TaskView[]> {
    const manager = this.reader();
    const live = await liveItemsOfTaskIds(manager, tasks.map((task) => task.id));
    const byTask = new Map<number, ItemEntity[]>(tasks.map((task) => [task.id, []]));
    for (const item of live) byTask.get(item.taskId)?.push(item);
    const cited = tasks.flatMap((task) => parseRefs(task.goal)
      .map(parseId)
      .filter((id): id is number => id !== null && !byTask.get(task.id)!.some((item) => item.id === id))
      .map((id) => ({ task: task.id, id })));
    const deleted = cited.length ? await itemsWithIds(manager, cited.map((entry) => entry.id)) : [];
    return tasks.map((task) => {
      const own = byTask.get(task.id)!;
      const gone = deleted.filter((item) => item.taskId === task.id && cited.some((entry) => entry.task === task.id && entry.id === item.id));
      return { task, all: [...own, ...gone], live: own };
    });
  }

  /**
   * What each item shows beside its row, for any number of items: two
   * statements, and two more for their claims and blockers with `coordination`
   * (a listing of items shows them; a task's summary does not).
   */
  async shown(itemIds: readonly number[], coordination = true): Promise<ShownItem[]> {
    if (itemIds.length === 0) return [];
    const none = itemIds.map(() => []);
    const [details, claims, blockers] = await Promise.all([
      this.details.detailsOfItems(itemIds),
      coordination ? this.claims.claimsOfItems(itemIds) : itemIds.map(() => null),
      coordination ? this.claims.blockersOfItems(itemIds) : none,
    ]);
    return itemIds.map((_, index) => ({
      ...details[index]!,
      claim: claims[index] ?? null,
      blockedBy: blockers[index]!.map((edge) => edge.dependsOnId),
    }));
  }

  /** A session (null when there is none by that id) and its current plan with every step. */
  async plan(sessionId: string): Promise<{ session: SessionEntity | null; plan: PlanView | null }> {
    const [session] = await this.sessions.sessionsByIds([sessionId]);
    if (!session) return { session: null, plan: null };
    const [planTaskId] = session.planTaskId === null ? [null] : await this.sessions.currentPlans([session.planTaskId]);
    if (planTaskId === null || planTaskId === undefined) return { session, plan: null };
    const all = await itemsOfTaskIds(this.reader(), [planTaskId]);
    return { session, plan: { session, all, steps: all.filter((item) => !item.deleted) } };
  }
}
