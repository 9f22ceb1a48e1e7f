import type { ItemEntity, MemoryEntity, TaskEventEntity } from '../db/entities/index.js';
import { ItemStateEnum, MemoryKindEnum, MemoryStatusEnum } from './types/enums.js';
import { Item } from './types/item.type.js';
import { Note, Task } from './types/memory.type.js';
import { TaskEvent } from './types/task-event.type.js';

/** Rows to API types. Derived fields (state, progress, numbers, rendered text) are field resolvers, not copied here. */
export function toTask(row: MemoryEntity): Task {
  return Object.assign(new Task(), {
    taskId: row.id,
    sessionId: row.sessionId,
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
  });
}

export function toTaskEvent(row: TaskEventEntity): TaskEvent {
  return Object.assign(new TaskEvent(), {
    id: String(row.id),
    at: new Date(row.at),
    action: row.action,
    items: row.items,
    changes: row.changes,
    sessionId: row.sessionId,
  });
}
