import type { ClaimEntity, CommentEntity, ItemDependencyEntity, ItemEntity, LoggedChangeEntity, MemoryEntity, SessionEntity, TaskEventEntity, TaskNoteEntity } from '../../db/entities/index.js';
import { applyDelta, type ListDelta } from '../../domain/list-delta.js';
import type { ItemChange, Snapshot } from '../../domain/list-diff.js';
import { withRuleDefaults, type PlanPreset, type PlanRules } from '../../domain/plan-rules.js';
import { bool, json, num } from './statements.js';

/**
 * The columns a hot read selects of each table, in a fixed order, and the
 * small typed function that maps one row (an array, statements.ts) to the
 * row type the services hand on: what TypeORM's hydration gives, without it.
 * `columns(alias)` is the select list; a mapper reads from `at` on, so one
 * statement can carry another table's columns, or values of its own, after.
 */
function selectList(names: readonly string[]) {
  return (alias: string) => names.map((name) => `${alias}."${name}"`).join(', ');
}

const ITEM = ['id', 'taskId', 'text', 'state', 'position', 'deleted', 'added', 'note', 'createdAt', 'updatedAt'] as const;
export const itemColumns = selectList(ITEM);
export const ITEM_WIDTH = ITEM.length;
/** Where an item column stands in itemColumns' list (0-based): for a statement that orders by it by number. */
export const itemColumnAt = (name: (typeof ITEM)[number]): number => ITEM.indexOf(name);
export function itemOf(row: readonly unknown[], at = 0): ItemEntity {
  return {
    id: num(row[at]),
    taskId: num(row[at + 1]),
    text: row[at + 2] as string,
    state: row[at + 3] as ItemEntity['state'],
    position: num(row[at + 4]),
    deleted: bool(row[at + 5]),
    added: bool(row[at + 6]),
    note: row[at + 7] as string | null,
    createdAt: row[at + 8] as string,
    updatedAt: row[at + 9] as string,
  };
}

const MEMORY = [
  'id', 'kind', 'title', 'domain', 'body', 'goal', 'archived', 'version', 'sessionId',
  'pendingItems', 'inProgressItems', 'doneItems', 'droppedItems', 'blockedItems', 'failedItems', 'taskState', 'createdAt', 'updatedAt',
] as const;
export const memoryColumns = selectList(MEMORY);
/** A memory's column names in memoryOf's order, for a select that wraps each column (linked-memory-reader.ts). */
export const MEMORY_COLUMN_NAMES: readonly string[] = MEMORY;
export const MEMORY_WIDTH = MEMORY.length;
export function memoryOf(row: readonly unknown[], at = 0): MemoryEntity {
  return {
    id: num(row[at]),
    kind: row[at + 1] as MemoryEntity['kind'],
    title: row[at + 2] as string,
    domain: row[at + 3] as string | null,
    body: row[at + 4] as string,
    goal: row[at + 5] as string,
    archived: bool(row[at + 6]),
    version: num(row[at + 7]),
    sessionId: row[at + 8] as string | null,
    pendingItems: num(row[at + 9]),
    inProgressItems: num(row[at + 10]),
    doneItems: num(row[at + 11]),
    droppedItems: num(row[at + 12]),
    blockedItems: num(row[at + 13]),
    failedItems: num(row[at + 14]),
    taskState: row[at + 15] as MemoryEntity['taskState'],
    createdAt: row[at + 16] as string,
    updatedAt: row[at + 17] as string,
  };
}

const COMMENT = ['id', 'taskId', 'itemId', 'body', 'createdAt'] as const;
export const commentColumns = selectList(COMMENT);
export const COMMENT_WIDTH = COMMENT.length;
export function commentOf(row: readonly unknown[], at = 0): CommentEntity {
  return {
    id: num(row[at]),
    taskId: num(row[at + 1]),
    itemId: row[at + 2] === null ? null : num(row[at + 2]),
    body: row[at + 3] as string,
    createdAt: row[at + 4] as string,
  };
}

const TASK_NOTE = ['id', 'taskId', 'title', 'body', 'brief', 'createdAt', 'updatedAt'] as const;
export const taskNoteColumns = selectList(TASK_NOTE);
export const TASK_NOTE_WIDTH = TASK_NOTE.length;
export function taskNoteOf(row: readonly unknown[], at = 0): TaskNoteEntity {
  return {
    id: num(row[at]),
    taskId: num(row[at + 1]),
    title: row[at + 2] as string,
    body: row[at + 3] as string | null,
    brief: json<TaskNoteEntity['brief']>(row[at + 4]),
    createdAt: row[at + 5] as string,
    updatedAt: row[at + 6] as string,
  };
}

const TASK_EVENT = ['id', 'taskId', 'at', 'action', 'sessionId', 'items', 'changes', 'chainLength'] as const;
export const taskEventColumns = selectList(TASK_EVENT);
export const TASK_EVENT_WIDTH = TASK_EVENT.length;

/** A history row as readers see it: the list after the change whole, however the row stores it. */
export interface RecordedTaskEvent extends Pick<TaskEventEntity, 'id' | 'taskId' | 'at' | 'action' | 'sessionId'> {
  readonly items: Snapshot[];
  readonly changes: ItemChange[];
}

/**
 * A history row; `previous` is the task's event just before it, which a
 * delta row's list is rebuilt from (history rows are read from a checkpoint
 * on, in order: services/tasks/task-reader.ts).
 */
export function taskEventOf(row: readonly unknown[], at = 0, previous: RecordedTaskEvent | null = null): RecordedTaskEvent {
  return new TaskEventRow(row, at, previous);
}

/**
 * A history row as read: its list (up to 500 items, whole or a delta) and
 * its changes are JSON, parsed the first time they are asked for, so a page
 * that shows only ids or counts (the dashboard's history(first: 1)) parses
 * neither, and a delta row rebuilds its list from the row before only then.
 */
class TaskEventRow implements RecordedTaskEvent {
  id: number;
  taskId: number;
  at: string;
  action: string;
  sessionId: string | null;
  #items: unknown;
  #changes: unknown;
  #chainLength: number;
  #previous: RecordedTaskEvent | null;
  #parsedItems: Snapshot[] | undefined;
  #parsedChanges: ItemChange[] | undefined;

  constructor(row: readonly unknown[], at: number, previous: RecordedTaskEvent | null) {
    this.id = num(row[at]);
    this.taskId = num(row[at + 1]);
    this.at = row[at + 2] as string;
    this.action = row[at + 3] as string;
    this.sessionId = row[at + 4] as string | null;
    this.#items = row[at + 5];
    this.#changes = row[at + 6];
    this.#chainLength = num(row[at + 7]);
    this.#previous = previous;
  }

  get items(): Snapshot[] {
    return (this.#parsedItems ??= this.#chainLength === 0 ? json<Snapshot[]>(this.#items) : applyDelta(this.#listBefore(), json<ListDelta>(this.#items)));
  }

  get changes(): ItemChange[] {
    return (this.#parsedChanges ??= json<ItemChange[]>(this.#changes));
  }

  #listBefore(): Snapshot[] {
    if (!this.#previous) throw new Error(`history row ${this.id} holds a delta, and the row before it was not read`);
    return this.#previous.items;
  }
}

const CLAIM = ['itemId', 'taskId', 'sessionId', 'claimedAt', 'expiresAt', 'takenFrom', 'owner'] as const;
export const claimColumns = selectList(CLAIM);
export const CLAIM_WIDTH = CLAIM.length;
export function claimOf(row: readonly unknown[], at = 0): ClaimEntity {
  return {
    itemId: num(row[at]),
    taskId: num(row[at + 1]),
    sessionId: row[at + 2] as string,
    claimedAt: row[at + 3] as string,
    expiresAt: row[at + 4] as string,
    takenFrom: (row[at + 5] ?? null) as string | null,
    owner: (row[at + 6] ?? null) as string | null,
  };
}

const ITEM_DEPENDENCY = ['noteId', 'itemId', 'dependsOnId', 'taskId', 'reason', 'id'] as const;
export const itemDependencyColumns = selectList(ITEM_DEPENDENCY);
export const ITEM_DEPENDENCY_WIDTH = ITEM_DEPENDENCY.length;
export function itemDependencyOf(row: readonly unknown[], at = 0): ItemDependencyEntity {
  return {
    noteId: row[at] === null ? null : num(row[at]),
    itemId: num(row[at + 1]),
    dependsOnId: num(row[at + 2]),
    taskId: num(row[at + 3]),
    reason: row[at + 4] as string | null,
    id: num(row[at + 5]),
  };
}

const LOGGED_CHANGE = ['id', 'at', 'action', 'entity', 'entityId', 'kind', 'domain', 'taskId', 'itemId', 'sessionId', 'madeBy'] as const;
export const loggedChangeColumns = selectList(LOGGED_CHANGE);
/** A change-log row, its id a number on both (PostgreSQL answers the BIGSERIAL as a string). */
export function loggedChangeRowOf(row: readonly unknown[], at = 0): LoggedChangeEntity {
  return {
    id: num(row[at]),
    at: row[at + 1] as string,
    action: row[at + 2] as string,
    entity: row[at + 3] as string,
    entityId: row[at + 4] as string,
    kind: row[at + 5] as string | null,
    domain: row[at + 6] as string | null,
    taskId: row[at + 7] === null ? null : num(row[at + 7]),
    itemId: row[at + 8] === null ? null : num(row[at + 8]),
    sessionId: row[at + 9] as string | null,
    madeBy: row[at + 10] as string | null,
  };
}

const SESSION = ['id', 'parentId', 'rules', 'planTaskId', 'planStanding', 'turn', 'finishedAt', 'lastRemindedAt', 'createdAt', 'name', 'preset', 'owner', 'steeringCursor', 'steeringSeenAt'] as const;
export const sessionColumns = selectList(SESSION);
/** A session row as TypeORM hydrates it: rules parsed and given the defaults of rules added since it was stored. */
export function sessionOf(row: readonly unknown[], at = 0): SessionEntity {
  const rules = json<PlanRules | null>(row[at + 2]);
  return {
    id: row[at] as string,
    parentId: row[at + 1] as string | null,
    rules: (rules ? withRuleDefaults(rules) : rules) as PlanRules,
    planTaskId: row[at + 3] === null ? null : num(row[at + 3]),
    planStanding: bool(row[at + 4]),
    turn: num(row[at + 5]),
    finishedAt: row[at + 6] as string | null,
    lastRemindedAt: row[at + 7] as string | null,
    createdAt: row[at + 8] as string,
    name: row[at + 9] as string | null,
    preset: row[at + 10] as PlanPreset | null,
    owner: row[at + 11] as string | null,
    steeringCursor: num(row[at + 12]),
    steeringSeenAt: row[at + 13] as string | null,
  };
}
