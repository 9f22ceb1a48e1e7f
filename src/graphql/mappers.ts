import { countsOf } from '../db/task-counts.js';
import type { CommentEntity, ItemEntity, MemoryEntity, TaskNoteEntity } from '../db/entities/index.js';
import type { RecordedTaskEvent } from '../services/kernel/entity-rows.js';
import { taskStateOf, taskStatus } from '../domain/states.js';
import { ItemStateEnum, MemoryKindEnum, MemoryStatusEnum, TaskStateEnum } from './types/enums.js';
import { Item } from './types/item.type.js';
import { Note, Task } from './types/memory.type.js';
import { TaskEvent } from './types/task-event.type.js';
import { Comment } from './types/comment.type.js';
import { Brief, TaskNote } from './types/task-note.type.js';

/**
 * Rows to API types. What follows from the row alone (a task's state, status
 * and progress) is worked out here once, a plain field the executor reads;
 * what needs other rows (numbers, rendered text, refs) is a field resolver.
 */
export function toTask(row: MemoryEntity): Task {
  const counts = countsOf(row);
  const state = taskStateOf(counts);
  return Object.assign(new Task(), {
    taskId: row.id,
    sessionId: row.sessionId,
    state: state as TaskStateEnum,
    status: taskStatus(state) as MemoryStatusEnum,
    progress: counts,
    id: String(row.id),
    kind: MemoryKindEnum.TASK,
    title: row.title,
    domain: row.domain,
    goal: row.goal,
    version: row.version,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  });
}

export function toNote(row: MemoryEntity): Note {
  return Object.assign(new Note(), {
    id: String(row.id),
    kind: MemoryKindEnum.NOTE,
    title: row.title,
    domain: row.domain,
    status: row.archived ? MemoryStatusEnum.ARCHIVED : MemoryStatusEnum.ACTIVE,
    body: row.body,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  });
}

export function toMemory(row: MemoryEntity): Task | Note {
  return row.kind === 'TASK' ? toTask(row) : toNote(row);
}

export function toItem(row: ItemEntity): Item {
  return Object.assign(new Item(), {
    itemId: row.id,
    taskId: row.taskId,
    id: String(row.id),
    text: row.text,
    state: row.state as ItemStateEnum,
    deleted: row.deleted,
    added: row.added,
    note: row.note,
    updatedAt: new Date(row.updatedAt),
  });
}

export function toTaskEvent(row: RecordedTaskEvent): TaskEvent {
  return Object.assign(new TaskEvent(), {
    id: String(row.id),
    at: new Date(row.at),
    action: row.action,
    row,
    sessionId: row.sessionId,
  });
}

export function toTaskNote(row: TaskNoteEntity): TaskNote {
  const brief = row.brief
    ? Object.assign(new Brief(), {
        taskId: row.taskId,
        dependsOnIds: row.brief.dependsOn,
        goal: row.brief.goal,
        context: row.brief.context,
        steps: row.brief.steps,
        pitfalls: row.brief.pitfalls,
        doneWhen: row.brief.doneWhen,
        extraInfo: row.brief.extraInfo,
      })
    : null;
  return Object.assign(new TaskNote(), {
    noteId: row.id,
    taskId: row.taskId,
    id: String(row.id),
    title: row.title,
    body: row.body,
    brief,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  });
}

export function toComment(row: CommentEntity): Comment {
  return Object.assign(new Comment(), {
    taskId: row.taskId,
    itemId: row.itemId,
    id: String(row.id),
    body: row.body,
    createdAt: new Date(row.createdAt),
  });
}
