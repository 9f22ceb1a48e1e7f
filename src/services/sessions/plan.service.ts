import type { HistoryAction } from '../../domain/history.js';
import { DomainError } from '../../domain/errors.js';
import { cleanFreeText } from '../../domain/text-rules.js';
import { orderWithRemoved, planWholeList, type TodoIn } from '../../domain/whole-list.js';
import {
  checkPlan, checkPlanNotLocked, checkStepNote, checkTodoNotes, keptNote, planMessage, renderPlan, stepIndex, type PlanStep,
} from '../../domain/plan-rules.js';
import {
  checkAddedSteps, checkStepStart, noPlan, planClearedMessage, planSetMessage, stepsAddedMessage,
  stepUpdatedMessage,
} from '../../domain/plan-steps.js';
import { checkFreeText } from '../../domain/refs.js';
import type { ItemState } from '../../domain/states.js';
import { deletedItem, parseId } from '../../domain/task-rules.js';
import { ItemEntity, MemoryEntity, SessionEntity } from '../../db/entities/index.js';
import type { SearchIndex } from '../search/search-index.js';
import { currentPlanIds, loadCallingSession, storeSessionName } from './session-store.js';
import { updateSessionRow, type SessionRowChange } from '../task-aggregate/session-lock.js';
import { takenSessionName } from '../../domain/session-names.js';
import { purgeDeletedSteps } from './plan-purge.js';
import {
  applyOrder, insertItems, insertItemsAfter, insertTask, loadTaskForChange, recordTaskChange, updateItemRow, type TaskAggregate, citableIds,
} from '../task-aggregate/task-store.js';
import { placeholders, runStatement } from '../kernel/statements.js';
import type { Caller, UnitOfWork, Writer } from '../kernel/unit-of-work.js';

export interface UpdateStepInput {
  step?: number | null;
  id?: string | null;
  state: ItemState;
  note?: string | null;
}

/** What every plan mutation answers. */
export interface PlanResult {
  session: SessionEntity;
  /** The plan after the call; null after clearPlan. */
  plan: MemoryEntity | null;
  /** One line for the agent: what happened, and the counts of the whole list. */
  message: string;
  /** The whole plan as a checklist (renderPlan); "(no plan)" when there is none. */
  rendered: string;
  /**
   * What the call changed, as data, so each tool set words its own answer:
   * the 1-based place of the step updated or of the first step added, how
   * many were added, and how many steps clearPlan removed (null when there
   * was no plan to clear).
   */
  change?: { place?: number; added?: number; cleared?: number | null };
  /**
   * Every item of the plan after the call, deleted ones too, in list order:
   * what the tool sets render, so none reads the plan again after a write.
   * Empty after clearPlan.
   */
  items: ItemEntity[];
}

/** What every accepted plan update writes on its session: the plan, standing again, no longer finished. */
const PLAN_RECORDED = `UPDATE "sessions" SET "planTaskId" = ?, "planStanding" = ?, "finishedAt" = ? WHERE "id" = ?`;

/** Every plan mutation acts as the calling session: without a started one it is the to-do tool's NO_SESSION. */
const AS_SESSION = { asSession: true } as const;

/** What rendered reads when the session has no plan. */
const NO_PLAN_RENDERED = '(no plan)';

/** The calling session and its plan task, if it ever wrote one. */
interface OpenPlan {
  session: SessionEntity;
  /** The plan task with all its items; null before the first write. */
  aggregate: TaskAggregate | null;
  /** True when a plan is recorded now: written, and not cleared since. */
  current: boolean;
}

/** Live items in list order: the plan as the agent reads it (an item is a PlanStep). */
function liveSteps(aggregate: TaskAggregate): ItemEntity[] {
  return aggregate.items.filter((item) => !item.deleted);
}

/** What a plan mutation answers about the plan as it now stands. */
function answer(
  session: SessionEntity,
  aggregate: TaskAggregate,
  message: (steps: readonly PlanStep[]) => string,
  change?: PlanResult['change'],
): PlanResult {
  const steps = liveSteps(aggregate);
  return { session, plan: aggregate.task, message: message(steps), rendered: renderPlan(steps), ...(change ? { change } : {}), items: aggregate.items };
}

/**
 * A session's plan: the three to-do tools (whole-list writeTodos, the step
 * operations, finish checked against the plan) served by one model. The plan
 * is a task with no domain owned by the session; each accepted call is one
 * transaction and one history row ('Update to-do list'), and a refused call
 * records nothing.
 */
export class PlanService {
  constructor(
    private readonly writer: Writer,
    private readonly search: SearchIndex,
  ) {}

  /**
   * Whole-list replace. The same trimmed text keeps its item id; new text is a
   * new item (marked added when a plan was already recorded); an item left
   * out is deleted. A state change clears the item's note (writeTodos carries
   * none).
   */
  async writeTodos(caller: Caller, todos: readonly TodoIn[]): Promise<PlanResult> {
    return this.writer.run(caller, async (uow) => {
      const open = await this.open(uow);
      const { rules } = open.session;
      checkPlanNotLocked(rules, open.aggregate !== null, true, 'writeTodos');
      checkPlan(todos.map((todo) => ({ text: todo.content, state: todo.status, note: null, added: false })), rules);
      const { next, removedIds } = planWholeList(open.aggregate?.before ?? [], todos);
      const byId = new Map((open.aggregate?.items ?? []).map((item) => [String(item.id), item]));
      checkTodoNotes(next, new Map([...byId].map(([id, item]) => [id, item.state])), rules);
      const aggregate = open.aggregate ?? (await this.createPlan(uow, open.session));
      await this.markDeleted(uow, aggregate, removedIds);
      for (const todo of next) {
        const item = todo.id === null ? undefined : byId.get(todo.id);
        if (!item) continue;
        // A state change takes the note sent with it (none clears the old reason); a note sent with the same state replaces the note.
        const note = keptNote(todo.note, rules);
        if (item.state === todo.state && (note === null || note === item.note)) continue;
        const change = { state: todo.state, note: item.state === todo.state ? note ?? item.note : note, updatedAt: uow.now };
        Object.assign(item, change);
        await updateItemRow(uow, item.id, change);
      }
      const fresh = next.filter((todo) => todo.id === null);
      const base = aggregate.items.length;
      const created = await insertItems(
        uow, aggregate.task.id,
        fresh.map((todo, index) => ({ text: todo.text, state: todo.state, note: keptNote(todo.note, rules), position: base + index, added: open.current })),
      );
      const createdIds = new Map(fresh.map((todo, index) => [todo, String(created[index]!.id)]));
      const live = next.map((todo) => todo.id ?? createdIds.get(todo)!);
      const order = orderWithRemoved(aggregate.items.map((item) => String(item.id)), live);
      aggregate.items = await applyOrder(uow, [...aggregate.items, ...created], order);
      return this.recorded(uow, open.session, aggregate, 'PLAN_WRITTEN', planMessage);
    }, AS_SESSION);
  }

  /** Replaces the plan with fresh PENDING steps (new ids); the old steps are deleted, statuses and notes discarded. */
  async setPlan(caller: Caller, steps: readonly string[]): Promise<PlanResult> {
    return this.writer.run(caller, async (uow) => {
      const open = await this.open(uow);
      checkPlanNotLocked(open.session.rules, open.aggregate !== null, true, 'setPlan');
      const fresh: PlanStep[] = steps.map((text) => ({ text: text.trim(), state: 'PENDING', note: null, added: false }));
      checkPlan(fresh, open.session.rules);
      const aggregate = open.aggregate ?? (await this.createPlan(uow, open.session));
      await this.markDeleted(uow, aggregate, liveSteps(aggregate).map((item) => String(item.id)));
      const base = aggregate.items.length;
      const created = await insertItems(uow, aggregate.task.id, fresh.map((step, index) => ({ text: step.text, position: base + index, added: false })));
      aggregate.items = [...aggregate.items, ...created];
      return this.recorded(uow, open.session, aggregate, 'PLAN_WRITTEN', planSetMessage);
    }, AS_SESSION);
  }

  /** Inserts steps after `after` (an item id; at the end when null), keeping every existing step and its state; marks them added. */
  async addSteps(caller: Caller, steps: readonly string[], after?: string | null): Promise<PlanResult> {
    return this.writer.run(caller, async (uow) => {
      const open = await this.open(uow);
      if (!open.current || !open.aggregate) throw noPlan('addSteps');
      const aggregate = open.aggregate;
      const live = liveSteps(aggregate);
      const anchor = after === null || after === undefined ? null : await this.stepById(uow, open, after);
      const firstNumber = anchor ? live.indexOf(anchor) + 2 : live.length + 1;
      const texts = checkAddedSteps(live.length, steps, firstNumber, open.session.rules);
      await insertItemsAfter(uow, aggregate, texts, anchor ? String(anchor.id) : null);
      return this.recorded(uow, open.session, aggregate, 'ITEMS_ADDED', (now) => stepsAddedMessage(firstNumber, texts.length, now), {
        place: firstNumber, added: texts.length,
      });
    }, AS_SESSION);
  }

  /**
   * Moves one step (by 1-based number or by id, exactly one) into a state,
   * with the note its rules ask for. The note replaces the step's note; a
   * state change without one clears it.
   */
  async updateStep(caller: Caller, input: UpdateStepInput): Promise<PlanResult> {
    return this.writer.run(caller, async (uow) => {
      const open = await this.open(uow);
      const byStep = input.step !== null && input.step !== undefined;
      const byId = input.id !== null && input.id !== undefined;
      if (byStep === byId) {
        throw new DomainError(
          'BAD_USER_INPUT',
          `updateStep needs exactly one of step (the 1-based number the rendered plan shows) or id (the item's id); it got ${byStep ? 'both' : 'neither'}.`,
          { fields: ['step', 'id'] },
        );
      }
      if (!open.current || !open.aggregate) throw noPlan('updateStep');
      const aggregate = open.aggregate;
      const live = liveSteps(aggregate);
      const index = byStep ? stepIndex(input.step!, live.length) : live.indexOf(await this.stepById(uow, open, input.id!));
      const { rules } = open.session;
      const note = input.note === null || input.note === undefined ? '' : keptNote(cleanFreeText(input.note, 'note'), rules) ?? '';
      if (note) checkFreeText(note, 'note', citableIds(aggregate));
      const item = live[index]!;
      // Resending the state a step has, with no note or the note it has, is accepted and records nothing.
      if (input.state === item.state && (!note || note === item.note)) {
        return answer(open.session, aggregate, (steps) => stepUpdatedMessage(index, steps), { place: index + 1 });
      }
      checkStepNote(input.state, note, rules);
      checkStepStart(live, index, input.state, rules);
      const change = { state: input.state, note: note || (input.state === item.state ? item.note : null), updatedAt: uow.now };
      await updateItemRow(uow, item.id, change);
      Object.assign(item, change);
      return this.recorded(uow, open.session, aggregate, 'ITEM_STATE', (now) => stepUpdatedMessage(index, now), { place: index + 1 });
    }, AS_SESSION);
  }

  /**
   * Deletes every step and records PLAN_CLEARED: the session has no plan until
   * the next writeTodos or setPlan, which continues the same history. With no
   * plan recorded it changes nothing.
   */
  async clearPlan(caller: Caller): Promise<PlanResult> {
    return this.writer.run(caller, async (uow) => {
      const open = await this.open(uow);
      const { session, aggregate } = open;
      checkPlanNotLocked(session.rules, aggregate !== null, true, 'clearPlan');
      uow.emit({ entity: 'SESSION', id: session.id, action: 'PLAN_CLEARED' });
      if (!open.current || !aggregate) {
        return { session, plan: null, message: planClearedMessage(null), rendered: NO_PLAN_RENDERED, change: { cleared: null }, items: [] };
      }
      const live = liveSteps(aggregate);
      await this.markDeleted(uow, aggregate, live.map((item) => String(item.id)));
      await recordTaskChange(uow, this.search, aggregate, 'PLAN_CLEARED');
      await this.saveSession(uow, session, { planStanding: false });
      return { session, plan: null, message: planClearedMessage(live.length), rendered: NO_PLAN_RENDERED, change: { cleared: live.length }, items: [] };
    }, AS_SESSION);
  }

  /** The calling session (NO_SESSION without one) and its plan task. */
  private async open(uow: UnitOfWork): Promise<OpenPlan> {
    const session = await loadCallingSession(uow);
    if (session.planTaskId === null) return { session, aggregate: null, current: false };
    const aggregate = await loadTaskForChange(uow, session.planTaskId, undefined, session);
    const [current] = await currentPlanIds(uow.manager, [aggregate.task.id]);
    return { session, aggregate, current: current !== null };
  }

  /** The session's plan task, made on its first write: a task with no domain, never indexed for search. */
  private async createPlan(uow: UnitOfWork, session: SessionEntity): Promise<TaskAggregate> {
    const task = await insertTask(uow, { title: `Plan of session ${session.id}`, domain: null, goal: '', sessionId: session.id });
    session.planTaskId = task.id;
    return { task, items: [], labelLimit: session.rules.maxTextLength, before: [] };
  }

  /** A live step of this session's plan by item id: FORBIDDEN for another session's, NOT_FOUND for anything else. */
  private async stepById(uow: UnitOfWork, open: OpenPlan, id: string): Promise<ItemEntity> {
    const own = open.aggregate?.items.find((item) => String(item.id) === id.trim());
    if (own?.deleted) throw deletedItem(String(own.id), own.text);
    if (own) return own;
    const itemId = parseId(id);
    const other = itemId === null ? null : await uow.manager.findOneBy(ItemEntity, { id: itemId });
    const task = other ? await uow.manager.findOneBy(MemoryEntity, { id: other.taskId }) : null;
    if (task?.sessionId && task.sessionId !== open.session.id) {
      throw new DomainError(
        'FORBIDDEN',
        `Item ${other!.id} is a step of another session's plan; a session may change only its own plan. Name a step of yours by its number or id.`,
        { itemId: String(other!.id) },
      );
    }
    throw new DomainError('NOT_FOUND', `Your plan has no step with id "${id}". Read the plan (or its rendered list) for step numbers and ids.`, { itemId: id });
  }

  /** Marks steps deleted, then purges the plan's oldest deleted steps beyond its cap (purgeDeletedSteps). */
  private async markDeleted(uow: UnitOfWork, aggregate: TaskAggregate, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const gone = new Set(ids);
    await runStatement(uow.manager, `UPDATE "items" SET "deleted" = ?, "updatedAt" = ? WHERE "id" IN (${placeholders(ids.length)})`, [true, uow.now, ...ids.map(Number)]);
    for (const item of aggregate.items) if (gone.has(String(item.id))) Object.assign(item, { deleted: true, updatedAt: uow.now });
    await purgeDeletedSteps(uow, aggregate);
  }

  /**
   * Records an accepted plan update: the history row (which bumps the
   * version), and on the session the plan, standing again, and no longer
   * finished (a changed plan must pass finishSession again).
   */
  private async recorded(
    uow: UnitOfWork,
    session: SessionEntity,
    aggregate: TaskAggregate,
    action: HistoryAction,
    message: (steps: readonly PlanStep[]) => string,
    change?: PlanResult['change'],
  ): Promise<PlanResult> {
    await recordTaskChange(uow, this.search, aggregate, action);
    await runStatement(uow.manager, PLAN_RECORDED, [aggregate.task.id, true, null, session.id]);
    Object.assign(session, { planTaskId: aggregate.task.id, planStanding: true, finishedAt: null });
    // A session with no name is named once, by the first step of its first plan (storeSessionName).
    const first = session.name === null ? takenSessionName(liveSteps(aggregate)[0]?.text ?? '') : null;
    if (first) await storeSessionName(uow, session, first);
    uow.emit({ entity: 'SESSION', id: session.id, action });
    return answer(session, aggregate, message, change);
  }

  private async saveSession(uow: UnitOfWork, session: SessionEntity, change: SessionRowChange): Promise<void> {
    await updateSessionRow(uow, session.id, change);
    Object.assign(session, change);
  }
}
