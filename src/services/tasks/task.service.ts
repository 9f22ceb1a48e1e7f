import { changesTheList, type HistoryAction } from '../../domain/history.js';
import { DomainError, refuse } from '../../domain/errors.js';
import { cleanFreeText, cleanItemLabels, cleanLabel, ITEMS_PER_CALL_MAX, ITEMS_PER_TASK_MAX, sameLabel, splitItemsText } from '../../domain/text-rules.js';
import { cleanDomain } from '../../domain/domains.js';
import { moveAfter } from '../../domain/ordering.js';
import { checkPlanNotLocked, checkPlanResize, checkStepNote, keptNote } from '../../domain/plan-rules.js';
import { checkStepStart } from '../../domain/plan-steps.js';
import { checkFreeText } from '../../domain/refs.js';
import type { ItemState } from '../../domain/states.js';
import { checkLinkCount, itemNotFound, parseId, TITLE_MAX } from '../../domain/task-rules.js';
import { ItemEntity, MemoryEntity } from '../../db/entities/index.js';
import { checkedComment, insertComment } from '../comments/comment-store.js';
import { createOnce } from '../kernel/idempotency.js';
import { num, runStatement, selectRows } from '../kernel/statements.js';
import { memoriesWithIds } from '../memories/memory-reader.js';
import type { SearchIndex } from '../search/search-index.js';
import { purgeDeletedSteps } from '../sessions/plan-purge.js';
import { isSettled } from '../../domain/claims.js';
import { endClaimsOnItems } from '../claims/claim-store.js';
import { checkClaimFence } from '../claims/claim-fence.js';
import { writeItemWaits } from '../task-notes/dependency-store.js';
import { itemsWithIds } from '../task-aggregate/item-rows.js';
import { taskViewIn, taskViewOf, type ItemChanged, type TaskView } from '../task-aggregate/task-view.js';
import { applyOrder, citableIds, insertItems, insertItemsAfter, insertTask, loadItemForChange, liveItem, loadTaskForChange, markPlanChanged, recordTaskChange, itemRowWrite, updateItemRow, type ItemRowChange, type TaskAggregate } from '../task-aggregate/task-store.js';
import type { Caller, UnitOfWork, Writer } from '../kernel/unit-of-work.js';

export interface CreateTaskInput {
  title: string;
  goal: string;
  items?: string[] | null;
  itemsText?: string | null;
  domain: string;
  idempotencyKey?: string | null;
}

export interface EditTaskInput {
  id: string;
  title?: string | null;
  goal?: string | null;
  domain?: string | null;
  expectedVersion?: number | null;
}

export interface UpdateItemInput {
  id: string;
  /** When given, the task the item must belong to. */
  taskId?: string | null;
  state?: ItemState | null;
  text?: string | null;
  comment?: string | null;
  related?: string[] | null;
  expectedVersion?: number | null;
  /** Change the state or text past another session's claim (claims fence); the reason goes in comment, and the override is recorded. */
  force?: boolean | null;
  /** The items of its task this one waits for, besides its briefs' (replacing what an earlier `after` said; [] clears it). */
  after?: readonly string[] | null;
  /** With taskId: refuse that task as not found when it is a session's plan (the knowledge-base tools leave plans to their own tools). */
  notAPlan?: boolean;
}

export interface AddItemsInput {
  taskId: string;
  items: string[];
  after?: string | null;
  expectedVersion?: number | null;
  idempotencyKey?: string | null;
  /** Only a knowledge-base task will do (the knowledge-base tools): a session's plan is refused as no task. */
  tasksOnly?: boolean;
}

interface TaskWithItems {
  task: MemoryEntity;
  /** The items this call made, in list order. */
  items: ItemEntity[];
  /** The task after the call, every item in list order, as the tools show it: read in the same transaction, so no adapter reads it back. */
  view: TaskView;
}

export type { ItemChanged } from '../task-aggregate/task-view.js';

/** Knowledge-base tasks and their checklists: every change is one transaction and one history row. */
export class TaskService {
  constructor(
    private readonly writer: Writer,
    private readonly search: SearchIndex,
  ) {}

  async createTask(caller: Caller, input: CreateTaskInput): Promise<TaskWithItems> {
    return this.writer.run(caller, (uow) => createOnce(uow, 'createTask', input,
      (stored) => this.reload(uow.manager, stored.id, stored.itemIds ?? []),
      async () => {
        const title = cleanLabel(input.title, 'title', TITLE_MAX);
        const domain = cleanDomain(input.domain);
        uow.touchDomain(domain);
        const goal = cleanFreeText(input.goal, 'goal');
        checkFreeText(goal, 'goal', new Set());
        if (input.items && input.itemsText !== null && input.itemsText !== undefined) {
          throw new DomainError('BAD_USER_INPUT', 'Send the items either as items (a list) or as itemsText (one label per line), not both.', { fields: ['items', 'itemsText'] });
        }
        const labels = cleanItemLabels(input.items ?? splitItemsText(input.itemsText ?? ''), []);
        const task = await insertTask(uow, { title, domain, goal, sessionId: null });
        const items = await insertItems(uow, task.id, labels.map((text, position) => ({ text, position, added: false })));
        await recordTaskChange(uow, this.search, { task, items, labelLimit: 0, before: [] }, 'TASK_CREATED');
        return { result: { task, items, view: taskViewOf(task, [...items]) }, stored: { id: String(task.id), itemIds: items.map((item) => String(item.id)) } };
      }));
  }

  /** Answers with the task after the edit and every item, as the tools show it. */
  async editTask(caller: Caller, input: EditTaskInput): Promise<TaskView> {
    return this.writer.run(caller, async (uow) => {
      const aggregate = await loadTaskForChange(uow, input.id, input.expectedVersion);
      const { task } = aggregate;
      const changes: Partial<MemoryEntity> = {};
      if (input.title !== null && input.title !== undefined) changes.title = cleanLabel(input.title, 'title', TITLE_MAX);
      if (input.goal !== null && input.goal !== undefined) {
        changes.goal = cleanFreeText(input.goal, 'goal');
        checkFreeText(changes.goal, 'goal', citableIds(aggregate));
      }
      if (input.domain !== null && input.domain !== undefined) {
        if (task.sessionId) {
          throw new DomainError('BAD_USER_INPUT', `Task ${task.id} is a session's plan, which has no domain. Create a knowledge-base task with createTask instead.`, { taskId: String(task.id), field: 'domain' });
        }
        changes.domain = cleanDomain(input.domain);
        uow.touchDomain(changes.domain);
      }
      if (Object.keys(changes).length === 0) {
        throw refuse('NOTHING_TO_CHANGE', { operation: 'editTask', fields: ['title', 'goal', 'domain'] });
      }
      // Sending what the task already says (a retried edit) is accepted and records nothing.
      for (const key of Object.keys(changes) as (keyof MemoryEntity)[]) if (changes[key] === task[key]) delete changes[key];
      if (Object.keys(changes).length === 0) return taskViewOf(task, aggregate.items);
      await uow.manager.update(MemoryEntity, { id: task.id }, changes);
      Object.assign(task, changes);
      await recordTaskChange(uow, this.search, aggregate, 'TASK_EDITED');
      return taskViewOf(task, aggregate.items);
    });
  }

  async updateItem(caller: Caller, input: UpdateItemInput): Promise<ItemChanged> {
    return this.writer.run(caller, (uow) => this.updateItemIn(uow, input));
  }

  /**
   * updateItem's work inside a unit of work the caller runs: every rule of
   * updateItem (the claims fence, a plan's rules, history, change log), for a
   * call that settles an item and does more in the same transaction
   * (claimNext with finish).
   */
  async updateItemIn(uow: UnitOfWork, input: UpdateItemInput): Promise<ItemChanged> {
    const asked = [input.state, input.text, input.comment, input.after].some((value) => value !== null && value !== undefined) || !!input.related?.length;
    if (!asked) throw refuse('NOTHING_TO_CHANGE', { operation: 'updateItem', fields: ['state', 'text', 'comment', 'related', 'after'] });
    if (input.force && !input.comment?.trim()) {
      throw new DomainError('BAD_USER_INPUT', 'force: true goes past another session\'s claim and is recorded: give the reason in comment.', { field: 'comment' });
    }
    // Claims fence what the item is (its state, its label), asked for even when it would change nothing: a late DONE
    // on work another session finished is refused, not answered DONE. A comment or a link is not fenced.
    const fenced = [input.state, input.text].some((value) => value !== null && value !== undefined);
    const { aggregate, item } = await loadItemForChange(uow, input.id, { taskId: input.taskId, expectedVersion: input.expectedVersion, notAPlan: input.notAPlan });
    const change: ItemRowChange = {};
    const actions: HistoryAction[] = [];
    if (input.text !== null && input.text !== undefined) {
      const text = cleanLabel(input.text, 'text', aggregate.labelLimit);
      if (text !== item.text) {
        if (aggregate.items.some((other) => !other.deleted && other !== item && sameLabel(other.text, text))) {
          throw new DomainError('DUPLICATE_TEXT', `"${text}" is already a live item of this task. Give this item a label that tells them apart.`, { text });
        }
        if (aggregate.rules) checkPlanNotLocked(aggregate.rules, true, uow.caller.sessionId !== null, 'rename');
        change.text = text;
        actions.push('ITEM_RENAMED');
      }
    }
    const comment = input.comment === null || input.comment === undefined ? null : checkedComment(aggregate, input.comment);
    if (input.state && input.state !== item.state) {
      if (aggregate.rules) {
        // A plan's step obeys its session's rules whichever mutation moves it; the comment is its note.
        const live = aggregate.items.filter((other) => !other.deleted);
        checkStepNote(input.state, comment, aggregate.rules);
        checkStepStart(live, live.indexOf(item), input.state, aggregate.rules);
      }
      change.state = input.state;
      // The note is the reason given with the latest state change; a change without one clears an old reason that no longer applies.
      change.note = aggregate.rules ? keptNote(comment, aggregate.rules) : comment || null;
      actions.unshift('ITEM_STATE');
    }
    const related = await this.linkable(uow.manager, item.id, input.related ?? []);
    if (comment) actions.push('COMMENT_ADDED');
    if (related.length) actions.push('ITEM_LINKED');
    // What it waits for is read by the ready rows, which the recorded change refreshes below.
    if (input.after && await writeItemWaits(uow, aggregate, item.id, input.after)) actions.push('ITEM_WAITS');
    if (Object.keys(change).length) change.updatedAt = uow.now;
    const written = itemRowWrite(item.id, change);
    Object.assign(item, change);
    // The item's row lock is held since its load (loadItemForChange), so the fence reads its claim after it: see
    // checkClaimFence, which sends the row's write in its own statement. Settled work needs no one: its claim ends with
    // the change that settled it, in the same statement (a state change is always fenced).
    const settling = !!change.state && isSettled(change.state);
    const fence = fenced ? await checkClaimFence(uow, aggregate, item, !!input.force, { settling, written }) : { lapsed: false, overrode: null };
    if (!fenced && written) await runStatement(uow.manager, written.sql, written.parameters);
    if (comment) await insertComment(uow, aggregate, comment, item.id);
    if (related.length) {
      // One statement for the call's links (at most 100), not one per link.
      await runStatement(uow.manager, `INSERT INTO "item_links" ("itemId", "memoryId", "createdAt") VALUES ${related.map(() => '(?, ?, ?)').join(', ')} ON CONFLICT DO NOTHING`,
        related.flatMap((memory) => [item.id, memory.id, uow.now]));
    }
    // Asking for what the item already is (its state, its label, memories already linked) is accepted
    // and records nothing, so a retried call answers like the first one.
    if (actions.length) {
      // A comment or a link on a step is not a plan update: only a change of the list makes the plan stand again.
      if (changesTheList(actions[0])) await this.recorded(uow, aggregate, actions[0]);
      else await recordTaskChange(uow, this.search, aggregate, actions[0], actions[0] === 'ITEM_WAITS' ? item.id : undefined);
    }
    return { item, items: aggregate.items, view: taskViewOf(aggregate.task, aggregate.items), fence };
  }

  /**
   * Drops every open item of a knowledge-base task with one reason, which
   * archives it (a task's state is derived: archived once every live item is
   * Done or Dropped). One transaction and one history row, so the task is
   * never seen half dropped and a refusal records nothing.
   */
  async dropRestAndArchive(caller: Caller, input: { taskId: string; reason: string; expectedVersion?: number | null }): Promise<TaskView> {
    return this.writer.run(caller, async (uow) => {
      const aggregate = await loadTaskForChange(uow, input.taskId, input.expectedVersion);
      if (aggregate.task.sessionId) {
        throw new DomainError('BAD_USER_INPUT', `Task ${aggregate.task.id} is a session's plan, which is never archived; drop its steps one by one with updateItem, or let the session finish.`, { taskId: String(aggregate.task.id), field: 'taskId' });
      }
      const reason = cleanFreeText(input.reason, 'reason');
      if (reason === '') throw new DomainError('BAD_USER_INPUT', 'reason is empty: say why the rest will not be done; every dropped item\'s row shows it.', { field: 'reason' });
      checkFreeText(reason, 'reason', citableIds(aggregate));
      const open = aggregate.items.filter((item) => !item.deleted && !isSettled(item.state));
      // Nothing left open: the task is archived already, and a retried call answers like the first.
      if (open.length === 0) return taskViewOf(aggregate.task, aggregate.items);
      const change: ItemRowChange = { state: 'DROPPED', note: reason, updatedAt: uow.now };
      for (const item of open) {
        await updateItemRow(uow, item.id, change);
        Object.assign(item, change);
        // A session may not drop what another session holds (CLAIMED): the whole call is refused, nothing recorded.
        await checkClaimFence(uow, aggregate, item, false);
      }
      await endClaimsOnItems(uow.manager, open.map((item) => item.id), { leavingReady: true });
      await recordTaskChange(uow, this.search, aggregate, 'ITEM_STATE');
      return taskViewOf(aggregate.task, aggregate.items);
    });
  }

  /**
   * Answers with the task after the delete and every item, the deleted one too, as the tools show it.
   * `scope` guards a mixed-up id as updateItem's taskId and notAPlan do.
   */
  async deleteItem(caller: Caller, id: string, scope: { taskId?: string | null; notAPlan?: boolean } = {}): Promise<TaskView> {
    return this.writer.run(caller, async (uow) => {
      const { aggregate, item } = await loadItemForChange(uow, id, scope);
      if (aggregate.rules) {
        checkPlanNotLocked(aggregate.rules, true, uow.caller.sessionId !== null, 'delete');
        checkPlanResize(aggregate.before.length, aggregate.before.length - 1, aggregate.rules);
      }
      await uow.manager.update(ItemEntity, { id: item.id }, { deleted: true, updatedAt: uow.now });
      Object.assign(item, { deleted: true, updatedAt: uow.now });
      await endClaimsOnItems(uow.manager, [item.id], { leavingReady: true });
      await purgeDeletedSteps(uow, aggregate);
      await this.recorded(uow, aggregate, 'ITEM_DELETED');
      return taskViewOf(aggregate.task, aggregate.items);
    });
  }

  /**
   * Brings a deleted item back where it stood, with its id, state, note and
   * comments: the undo of deleteItem. Its label must still be unique among
   * the live items and the task must have room (the same rules as adding
   * it); a plan's step also obeys its session's rules. Restoring an item
   * that is not deleted records nothing, so a retried undo answers alike.
   */
  async restoreItem(caller: Caller, input: { id: string; expectedVersion?: number | null }): Promise<ItemEntity> {
    return this.writer.run(caller, async (uow) => {
      const itemId = parseId(input.id);
      const found = itemId === null ? null : (await itemsWithIds(uow.manager, [itemId]))[0] ?? null;
      if (!found) throw itemNotFound(input.id);
      const aggregate = await loadTaskForChange(uow, found.taskId, input.expectedVersion);
      const item = aggregate.items.find((candidate) => candidate.id === found.id)!;
      if (!item.deleted) return item;
      const live = aggregate.items.filter((other) => !other.deleted);
      if (live.some((other) => sameLabel(other.text, item.text))) {
        throw new DomainError('DUPLICATE_TEXT', `"${item.text}" is a live item of this task again, so the deleted one cannot come back beside it. Rename or delete the live one first.`, { itemId: String(item.id), text: item.text });
      }
      if (live.length >= ITEMS_PER_TASK_MAX) {
        throw new DomainError('TOO_LARGE', `the task has ${live.length} live items, the most it may hold; delete or finish one elsewhere before bringing this one back.`, { live: live.length, limit: ITEMS_PER_TASK_MAX });
      }
      if (aggregate.rules) {
        checkPlanNotLocked(aggregate.rules, true, uow.caller.sessionId !== null, 'restore');
        checkPlanResize(live.length, live.length + 1, aggregate.rules);
      }
      await uow.manager.update(ItemEntity, { id: item.id }, { deleted: false, updatedAt: uow.now });
      Object.assign(item, { deleted: false, updatedAt: uow.now });
      await this.recorded(uow, aggregate, 'ITEM_RESTORED');
      return item;
    });
  }

  async addItems(caller: Caller, input: AddItemsInput): Promise<TaskWithItems> {
    return this.writer.run(caller, (uow) => createOnce(uow, 'addItems', input,
      (stored) => this.reload(uow.manager, stored.id, stored.itemIds ?? []),
      async () => {
        const aggregate = await loadTaskForChange(uow, input.taskId, input.expectedVersion, undefined, undefined, { tasksOnly: input.tasksOnly });
        if (input.items.length === 0) throw new DomainError('BAD_USER_INPUT', 'addItems needs at least one label in items.', { field: 'items', count: 0 });
        const live = aggregate.items.filter((item) => !item.deleted);
        const labels = cleanItemLabels(input.items, live.map((item) => item.text), aggregate.labelLimit);
        if (aggregate.rules) checkPlanResize(live.length, live.length + labels.length, aggregate.rules);
        const after = input.after === null || input.after === undefined ? null : String(liveItem(aggregate, input.after).id);
        const created = await insertItemsAfter(uow, aggregate, labels, after);
        await this.recorded(uow, aggregate, 'ITEMS_ADDED');
        return { result: { task: aggregate.task, items: created, view: taskViewOf(aggregate.task, aggregate.items) }, stored: { id: String(aggregate.task.id), itemIds: created.map((item) => String(item.id)) } };
      }));
  }

  async moveItem(caller: Caller, input: { id: string; after?: string | null }): Promise<MemoryEntity> {
    return this.writer.run(caller, async (uow) => {
      const { aggregate, item } = await loadItemForChange(uow, input.id);
      if (aggregate.rules) checkPlanNotLocked(aggregate.rules, true, uow.caller.sessionId !== null, 'move');
      let after: string | null = null;
      if (input.after !== null && input.after !== undefined) {
        after = String(liveItem(aggregate, input.after).id);
        if (after === String(item.id)) throw new DomainError('BAD_USER_INPUT', 'An item cannot be placed after itself; name another item in after, or null for first.', { itemId: String(item.id), field: 'after' });
      }
      const order = moveAfter(aggregate.items.map((other) => String(other.id)), String(item.id), after);
      // Moving an item where it already stands among the live items is accepted and records nothing.
      const live = new Set(aggregate.before.map((snapshot) => snapshot.id));
      const liveOrder = order.filter((id) => live.has(id));
      if (liveOrder.every((id, index) => id === aggregate.before[index].id)) return aggregate.task;
      aggregate.items = await applyOrder(uow, aggregate.items, order);
      await this.recorded(uow, aggregate, 'ITEM_MOVED');
      return aggregate.task;
    });
  }

  /** Records a change of the task's list (and, on a plan, of its session's plan). */
  private async recorded(uow: UnitOfWork, aggregate: TaskAggregate, action: HistoryAction): Promise<void> {
    await recordTaskChange(uow, this.search, aggregate, action);
    await markPlanChanged(uow, aggregate);
  }

  /**
   * Memories to link to an item: each id must name one (NOT_FOUND otherwise);
   * those already linked are left out, so relinking records nothing.
   */
  private async linkable(manager: import('typeorm').EntityManager, itemId: number, ids: readonly string[]): Promise<MemoryEntity[]> {
    if (ids.length === 0) return [];
    if (ids.length > ITEMS_PER_CALL_MAX) {
      throw new DomainError('TOO_LARGE', `related names ${ids.length} memories; link at most ${ITEMS_PER_CALL_MAX} in one call.`, { field: 'related', count: ids.length, limit: ITEMS_PER_CALL_MAX });
    }
    const numeric = ids.map((id) => parseId(id));
    const rows = numeric.includes(null) ? [] : await memoriesWithIds(manager, numeric as number[]);
    const missing = ids.filter((id) => !rows.some((row) => String(row.id) === String(id).trim() && !row.sessionId));
    if (missing.length) {
      throw refuse('RELATED_NOT_FOUND', { memoryIds: missing });
    }
    const linked = new Set((await selectRows(manager, `SELECT l."memoryId" FROM "item_links" l WHERE l."itemId" = ?`, [itemId])).map(([memoryId]) => num(memoryId)));
    const fresh = rows.filter((row) => !linked.has(row.id));
    checkLinkCount(String(itemId), linked.size, new Set(fresh.map((row) => row.id)).size);
    return fresh;
  }

  /** The first call's result, for an idempotent retry: the items it made, and the task as it stands. */
  private async reload(manager: import('typeorm').EntityManager, taskId: string, itemIds: string[]): Promise<TaskWithItems | null> {
    const view = await taskViewIn(manager, Number(taskId));
    if (!view) return null;
    const items = itemIds.map((id) => view.all.find((item) => String(item.id) === id)).filter((item): item is ItemEntity => item !== undefined);
    return { task: view.task, items, view };
  }
}
