import { checkBriefItemCount, cleanBrief, taskNoteShape, type BriefIn } from '../../domain/briefs.js';
import { DomainError, refuse } from '../../domain/errors.js';
import { cleanFreeText, cleanLabel } from '../../domain/text-rules.js';
import { checkFreeText } from '../../domain/refs.js';
import { parseId, TITLE_MAX } from '../../domain/task-rules.js';
import { MemoryEntity, TaskNoteEntity, TaskNoteItemEntity } from '../../db/entities/index.js';
import { createOnce } from '../kernel/idempotency.js';
import type { SearchIndex } from '../search/search-index.js';
import { liveItem, loadTaskForChange, recordTaskChange, type TaskAggregate, citableIds } from '../task-aggregate/task-store.js';
import { taskViewIn, taskViewOf, type TaskView } from '../task-aggregate/task-view.js';
import type { Caller, UnitOfWork, Writer } from '../kernel/unit-of-work.js';
import { deleteBriefEdges, writeBriefEdges } from './dependency-store.js';

export interface AddTaskNoteInput {
  taskId: string;
  title: string;
  items?: string[] | null;
  brief?: BriefIn | null;
  body?: string | null;
  idempotencyKey?: string | null;
  /** Only a knowledge-base task will do (the knowledge-base tools): a session's plan is refused as no task. */
  tasksOnly?: boolean;
}

export interface EditTaskNoteInput {
  id: string;
  title?: string | null;
  body?: string | null;
  brief?: BriefIn | null;
}

function deletedIds(aggregate: TaskAggregate): Set<string> {
  return new Set(aggregate.items.filter((item) => item.deleted).map((item) => String(item.id)));
}

function noteNotFound(id: string): DomainError {
  return new DomainError('NOT_FOUND', `No task note has id "${id}". Read the task's notes for their ids.`, { noteId: id });
}

/** A whole-task note's body: free text that must say something. */
function cleanBody(raw: string, aggregate: TaskAggregate): string {
  const body = cleanFreeText(raw, 'body');
  if (body === '') throw new DomainError('BRIEF_INCOMPLETE', 'A note on the whole task needs a body; send some text.', { fields: ['body'] });
  checkFreeText(body, 'body', citableIds(aggregate));
  return body;
}

/** A task note just added: the items it is on (by id, as TaskNoteReader.itemsOfNotes gives them) and its task as the tools show it, from the same transaction. */
export interface TaskNoteAdded {
  note: TaskNoteEntity;
  items: number[];
  view: TaskView;
}

function byId(ids: readonly number[]): number[] {
  return [...ids].sort((a, b) => a - b);
}

/** Briefs on items and notes on the whole task. They belong to their task: never memories, never in search. */
export class TaskNoteService {
  constructor(
    private readonly writer: Writer,
    private readonly search: SearchIndex,
  ) {}

  async addTaskNote(caller: Caller, input: AddTaskNoteInput): Promise<TaskNoteAdded> {
    return this.writer.run(caller, (uow) => createOnce(uow, 'addTaskNote', input,
      async (stored) => {
        const note = await uow.manager.findOneBy(TaskNoteEntity, { id: Number(stored.id) });
        const view = note && await taskViewIn(uow.manager, note.taskId);
        if (!note || !view) return null;
        const items = (await uow.manager.findBy(TaskNoteItemEntity, { noteId: note.id })).map((link) => link.itemId);
        return { note, items: byId(items), view };
      },
      async () => {
        const aggregate = await loadTaskForChange(uow, input.taskId, null, undefined, undefined, { tasksOnly: input.tasksOnly });
        const title = cleanLabel(input.title, 'title', TITLE_MAX);
        const shape = taskNoteShape(input);
        const note = uow.manager.create(TaskNoteEntity, {
          taskId: aggregate.task.id, title, body: null, brief: null, createdAt: uow.now, updatedAt: uow.now,
        });
        let itemIds: number[] = [];
        if (shape === 'BRIEF') {
          itemIds = this.briefedItems(aggregate, input.items ?? []);
          note.brief = cleanBrief(input.brief!, citableIds(aggregate), { briefed: new Set(itemIds.map(String)), deleted: deletedIds(aggregate) });
        } else {
          note.body = cleanBody(input.body!, aggregate);
        }
        note.id = Number((await uow.manager.insert(TaskNoteEntity, note)).identifiers[0].id);
        if (itemIds.length) await uow.manager.insert(TaskNoteItemEntity, itemIds.map((itemId) => ({ noteId: note.id, itemId })));
        if (note.brief) await writeBriefEdges(uow, aggregate, note.id, itemIds, note.brief);
        await recordTaskChange(uow, this.search, aggregate, 'NOTE_ADDED');
        return { result: { note, items: byId(itemIds), view: taskViewOf(aggregate.task, aggregate.items) }, stored: { id: String(note.id) } };
      }));
  }

  async editTaskNote(caller: Caller, input: EditTaskNoteInput): Promise<TaskNoteEntity> {
    return this.writer.run(caller, async (uow) => {
      const { note, aggregate } = await this.load(uow, input.id);
      const change: Partial<TaskNoteEntity> = {};
      if (input.title !== null && input.title !== undefined) change.title = cleanLabel(input.title, 'title', TITLE_MAX);
      if (input.body !== null && input.body !== undefined) {
        if (note.brief) throw new DomainError('BRIEF_INCOMPLETE', `Task note ${note.id} is a brief on items; change it with brief, not body.`, { noteId: String(note.id), field: 'body' });
        change.body = cleanBody(input.body, aggregate);
      }
      if (input.brief !== null && input.brief !== undefined) {
        if (!note.brief) throw new DomainError('BRIEF_INCOMPLETE', `Task note ${note.id} is a note on the whole task; change it with body, not brief.`, { noteId: String(note.id), field: 'brief' });
        const briefed = (await uow.manager.findBy(TaskNoteItemEntity, { noteId: note.id })).map((link) => String(link.itemId));
        change.brief = cleanBrief(input.brief, citableIds(aggregate), {
          briefed: new Set(briefed), deleted: deletedIds(aggregate), kept: new Set(note.brief.dependsOn.map((d) => d.item)),
        });
      }
      if (Object.keys(change).length === 0) throw refuse('NOTHING_TO_CHANGE', { operation: 'editTaskNote', fields: ['title', 'body', 'brief'] });
      change.updatedAt = uow.now;
      await uow.manager.update(TaskNoteEntity, { id: note.id }, change);
      Object.assign(note, change);
      if (change.brief) {
        const briefed = (await uow.manager.findBy(TaskNoteItemEntity, { noteId: note.id })).map((link) => link.itemId);
        await writeBriefEdges(uow, aggregate, note.id, briefed, change.brief);
      }
      await recordTaskChange(uow, this.search, aggregate, 'NOTE_EDITED');
      return note;
    });
  }

  async deleteTaskNote(caller: Caller, id: string): Promise<MemoryEntity> {
    return this.writer.run(caller, async (uow) => {
      const { note, aggregate } = await this.load(uow, id);
      await uow.manager.delete(TaskNoteItemEntity, { noteId: note.id });
      await deleteBriefEdges(uow, note.id);
      await uow.manager.delete(TaskNoteEntity, { id: note.id });
      await recordTaskChange(uow, this.search, aggregate, 'NOTE_DELETED');
      return aggregate.task;
    });
  }

  private async load(uow: UnitOfWork, id: string): Promise<{ note: TaskNoteEntity; aggregate: TaskAggregate }> {
    const noteId = parseId(id);
    const note = noteId === null ? null : await uow.manager.findOneBy(TaskNoteEntity, { id: noteId });
    if (!note) throw noteNotFound(id);
    return { note, aggregate: await loadTaskForChange(uow, note.taskId) };
  }

  /** The live items of this task a brief is on, each once. */
  private briefedItems(aggregate: TaskAggregate, ids: readonly string[]): number[] {
    const chosen: number[] = [];
    for (const raw of ids) {
      const item = liveItem(aggregate, raw, 'A brief is on items of its own task.');
      if (!chosen.includes(item.id)) chosen.push(item.id);
    }
    checkBriefItemCount(chosen.length);
    return chosen;
  }
}

