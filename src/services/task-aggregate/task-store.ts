import type { HistoryAction } from '../../domain/history.js';
import { DomainError, refuse } from '../../domain/errors.js';
import { ITEM_LABEL_MAX } from '../../domain/text-rules.js';
import { diffSnapshots, type ItemChange, type Snapshot } from '../../domain/list-diff.js';
import { insertAfter } from '../../domain/ordering.js';
import { DEFAULT_PLAN_RULES, type PlanRules } from '../../domain/plan-rules.js';
import type { ItemState } from '../../domain/states.js';
import { checkExpectedVersion, deletedItem, itemNotFound, itemNotInTask, parseId, taskNotFound } from '../../domain/task-rules.js';
import { ItemEntity, MemoryEntity, SessionEntity } from '../../db/entities/index.js';
import { countColumns } from '../../db/task-counts.js';
import type { SearchIndex } from '../search/search-index.js';
import { itemColumns, itemOf, ITEM_WIDTH, memoryColumns, memoryOf } from '../kernel/entity-rows.js';
import { num, placeholders, runStatement, selectRows, tuples, type Statement } from '../kernel/statements.js';
import { insertTaskEvent, latestRecorded, taskEventStatement } from './history-rows.js';
import { itemsOfTaskIds } from './item-rows.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import { lockSession, readSession, updateSessionRow } from './session-lock.js';
import { refreshAsWritten, refreshReadyItems } from './ready-rows.js';

/** A task as a mutation changes it: the row and all its items (deleted ones too) in list order. */
export interface TaskAggregate {
  task: MemoryEntity;
  items: ItemEntity[];
  /** Longest item label: 80 on a knowledge-base task, the session's maxTextLength on a plan. */
  labelLimit: number;
  /** A plan's rules (its session's), which every change of the plan obeys; null on a knowledge-base task. */
  rules?: PlanRules | null;
  /** The live list before this change, for the history row's changes. */
  before: Snapshot[];
  /** The list of the history row this change wrote last, if it wrote one: the next row's delta starts from it (history-rows.ts HistoryTip). */
  recorded?: Snapshot[];
  /** The task's search document (title and text) as loaded; unset for a task made in this change. */
  searchedAs?: string;
}

/** The live list as a history row holds it. */
export function snapshotOf(items: readonly ItemEntity[]): Snapshot[] {
  return items.filter((item) => !item.deleted).map((item) => ({ id: String(item.id), text: item.text, state: item.state }));
}

/**
 * Loads a task for change inside the unit of work: on PostgreSQL the row is
 * locked so concurrent changes queue instead of overwriting; on SQLite the
 * write lock already serialises them. A plan's session row is locked before
 * its task row, the order every plan write takes (see lockSession), so the
 * dashboard steering a plan never deadlocks with the agent writing it: the
 * task is read once unlocked to learn whose plan it is (a task's session
 * never changes). Checks expectedVersion and that a session changes only its
 * own plan (that the session is the caller's token's, the Writer checks).
 */
export async function loadTaskForChange(
  uow: UnitOfWork,
  id: string | number,
  expectedVersion?: number | null,
  /** The session already loaded (and locked) in this unit of work, when the task is its plan: not read or locked again. */
  owner?: SessionEntity,
  /** The task as read unlocked just before (loadItemForChange): whose plan it is, and its items at its version. */
  peeked?: TaskPeek,
  /** Only a knowledge-base task will do: a session's plan is no task to this caller (the knowledge-base tools show none). */
  { tasksOnly = false }: { tasksOnly?: boolean } = {},
): Promise<TaskAggregate> {
  const taskId = parseId(id);
  const postgres = uow.manager.connection.options.type === 'postgres';
  const ownPlan = owner !== undefined && owner.planTaskId === taskId;
  const [peek] = peeked ? [[peeked.sessionId]] : taskId === null || !postgres || ownPlan ? [] : await selectRows(uow.manager, TASK_SESSION, [taskId]);
  if (tasksOnly && peek?.[0]) throw taskNotFound(String(id));
  let session: SessionEntity | null = ownPlan ? owner : null;
  if (peek?.[0]) session = await lockSession(uow, peek[0] as string);
  // FOR NO KEY UPDATE: rows that only reference the task (an item link to it from another task) do not wait on it.
  const [row] = taskId === null || peeked?.task ? [] : await selectRows(uow.manager, postgres ? `${SELECT_TASK} FOR NO KEY UPDATE` : SELECT_TASK, [taskId]);
  const task = peeked?.task ?? (row ? memoryOf(row) : null);
  const notATask = whyNotATask(task, String(id), tasksOnly);
  if (notATask || !task) throw notATask ?? taskNotFound(String(id));
  if (task.sessionId && uow.caller.sessionId && task.sessionId !== uow.caller.sessionId) {
    throw new DomainError('FORBIDDEN', `Task ${task.id} is the plan of another session; a session may change only its own plan.`, { taskId: String(task.id) });
  }
  if (task.sessionId && session?.id !== task.sessionId) session = await readSession(uow.manager, task.sessionId);
  checkExpectedVersion(String(task.id), task.version, expectedVersion);
  uow.touchDomain(task.domain);
  // Every change of a task's items bumps its version in the same transaction (recordTaskChange): items read before
  // the lock at the version the lock found are the items as they stand. A plan's are read again (its purges).
  const items = peeked && !task.sessionId && peeked.version === task.version ? peeked.items : await itemsOfTaskIds(uow.manager, [task.id]);
  const rules: PlanRules | null = task.sessionId ? (session?.rules ?? DEFAULT_PLAN_RULES) : null;
  return {
    task, items, labelLimit: rules?.maxTextLength ?? ITEM_LABEL_MAX, rules, before: snapshotOf(items), searchedAs: searchDocument(task, items),
  };
}

const SELECT_TASK = `SELECT ${memoryColumns('m')} FROM "memories" m WHERE m."id" = ?`;
/** Whose plan a task is (null for a knowledge-base task): read unlocked, before any lock is taken. */
const TASK_SESSION = `SELECT m."sessionId" FROM "memories" m WHERE m."id" = ?`;

/**
 * An item and its task, loaded for a change like loadTaskForChange: NOT_FOUND
 * when no item has the id (or, with `taskId`, when the item is not that
 * task's), DELETED_ITEM when it is deleted. The one lookup for every mutation
 * that names an item by id alone.
 */
export async function loadItemForChange(
  uow: UnitOfWork,
  id: string,
  /** `taskId`: the task the item must belong to; with `notAPlan`, that task must not be a session's plan (as no task by that id). */
  options: { taskId?: string | null; expectedVersion?: number | null; notAPlan?: boolean } = {},
): Promise<{ aggregate: TaskAggregate; item: ItemEntity }> {
  const itemId = parseId(id);
  const peeked = itemId === null ? null : await peekItemTask(uow, itemId);
  if (!peeked) throw itemNotFound(id);
  if (options.taskId !== null && options.taskId !== undefined && parseId(options.taskId) !== peeked.taskId) throw await whyNotInTask(uow, id, options.taskId, options.notAPlan);
  if (options.notAPlan && options.taskId && peeked.sessionId) throw taskNotFound(options.taskId);
  const aggregate = await loadTaskForChange(uow, peeked.taskId, options.expectedVersion, undefined, peeked);
  return { aggregate, item: liveItem(aggregate, id) };
}

/**
 * The refusal for an item named under a task it is not in, read on that path only: the task named may be
 * no task at all (missing, a note, or a plan where only tasks will do), which is the caller's real mistake.
 */
async function whyNotInTask(uow: UnitOfWork, itemId: string, taskId: string, notAPlan?: boolean): Promise<DomainError> {
  const id = parseId(taskId);
  const [row] = id === null ? [] : await selectRows(uow.manager, SELECT_TASK, [id]);
  const task = row ? memoryOf(row) : null;
  return whyNotATask(task, taskId, notAPlan) ?? itemNotInTask(itemId, taskId);
}

/** The refusal for a memory named as a task that is none (missing, a note, or a plan where only tasks will do); null for a task. */
function whyNotATask(task: MemoryEntity | null, id: string, tasksOnly = false): DomainError | null {
  if (task?.kind === 'NOTE') return refuse('NOT_A_TASK', { memoryId: String(task.id), kind: 'NOTE' });
  if (!task || (tasksOnly && task.sessionId)) return taskNotFound(id);
  return null;
}

/** A task as read unlocked, before its row lock is taken: whose plan it is (null: a knowledge-base task), its version, its items then. */
interface TaskPeek {
  taskId: number;
  sessionId: string | null;
  version: number;
  items: ItemEntity[];
  /** A knowledge-base task's row, locked by the same statement (SQLite: read under the write lock); unset for a plan, whose session is locked first. */
  task?: MemoryEntity;
}

/**
 * The task of an item, read unlocked in one statement with all its items:
 * what loadItemForChange needs before it locks the task (whose plan it is),
 * and the items, which stand unless the version moved by the time the lock
 * is held. Null when no item has the id. A knowledge-base task (no session
 * to lock before it) is locked by the same statement, FOR NO KEY UPDATE as
 * loadTaskForChange would: its row comes back as the lock found it, so the
 * lock costs no round trip of its own. So is the item's row, after the
 * task's (it reads the task's lock: a writer holding the task and wanting
 * an item is never waited for by one holding that item), for the claims
 * fence: every statement after this one sees a claim on the item that
 * committed before, and a claimNext after it passes over the item (SKIP
 * LOCKED) until this write ends (claim-fence.ts).
 */
async function peekItemTask(uow: UnitOfWork, itemId: number): Promise<TaskPeek | null> {
  const postgres = uow.manager.connection.options.type === 'postgres';
  // MATERIALIZED: the lock is taken once, whatever the number of item rows it is joined to.
  const sql = postgres
    ? `WITH k AS MATERIALIZED (SELECT ${memoryColumns('m')} FROM "memories" m WHERE m."id" = (SELECT y."taskId" FROM "items" y WHERE y."id" = ?)
        AND m."sessionId" IS NULL FOR NO KEY UPDATE),
        j AS MATERIALIZED (SELECT 1 FROM "items" z WHERE z."id" = ? AND z."taskId" IN (SELECT k."id" FROM k) FOR NO KEY UPDATE)
      SELECT ${itemColumns('i')}, m."sessionId", m."version", ${memoryColumns('k')}, jl."locked" FROM "items" x
      INNER JOIN "memories" m ON m."id" = x."taskId" INNER JOIN "items" i ON i."taskId" = x."taskId" LEFT JOIN k ON 1 = 1
      CROSS JOIN (SELECT COUNT(*) AS "locked" FROM j) jl
      WHERE x."id" = ? ORDER BY i."position" ASC, i."id" ASC`
    : `SELECT ${itemColumns('i')}, m."sessionId", m."version", ${memoryColumns('m')} FROM "items" x
      INNER JOIN "memories" m ON m."id" = x."taskId" INNER JOIN "items" i ON i."taskId" = x."taskId"
      WHERE x."id" = ? ORDER BY i."position" ASC, i."id" ASC`;
  const rows = await selectRows(uow.manager, sql, postgres ? [itemId, itemId, itemId] : [itemId]);
  if (rows.length === 0) return null;
  const items = rows.map((row) => itemOf(row));
  const sessionId = rows[0][ITEM_WIDTH] as string | null;
  const locked = rows[0][ITEM_WIDTH + 2] === null ? undefined : memoryOf(rows[0], ITEM_WIDTH + 2);
  return { taskId: items[0].taskId, sessionId, version: num(rows[0][ITEM_WIDTH + 1]), items, task: sessionId === null ? locked : undefined };
}

/**
 * A live item of the aggregate by id: NOT_FOUND when it is not this task's
 * (`hint` says what to send instead), DELETED_ITEM when deleted.
 */
export function liveItem(aggregate: TaskAggregate, id: string, hint = "Read the task's items for their ids."): ItemEntity {
  const itemId = parseId(id);
  const item = aggregate.items.find((candidate) => candidate.id === itemId);
  if (!item) throw new DomainError('NOT_FOUND', `Task ${aggregate.task.id} has no item with id "${id}". ${hint}`, { taskId: String(aggregate.task.id), itemId: id });
  if (item.deleted) throw deletedItem(String(item.id), item.text);
  return item;
}

/**
 * Inserts new items (in order) at the given positions in one statement,
 * whatever their number (at most ITEMS_PER_CALL_MAX a call); returns them
 * with their ids. RETURNING gives each row's id beside its position, which
 * tells the rows apart whatever order the database answers them in.
 */
export async function insertItems(
  uow: UnitOfWork,
  taskId: number,
  rows: readonly { text: string; state?: ItemState; position: number; added: boolean; note?: string | null }[],
): Promise<ItemEntity[]> {
  if (rows.length === 0) return [];
  const created = rows.map((row): ItemEntity => ({
    id: 0, taskId, text: row.text, state: row.state ?? 'PENDING', position: row.position, deleted: false,
    added: row.added, note: row.note ?? null, createdAt: uow.now, updatedAt: uow.now,
  }));
  const values = created.flatMap((item) => [item.taskId, item.text, item.state, item.position, item.deleted, item.added, item.note, item.createdAt, item.updatedAt]);
  const sql = `INSERT INTO "items" (${INSERTED_COLUMNS.map((column) => `"${column}"`).join(', ')}) VALUES ${tuples(created.length, placeholders(INSERTED_COLUMNS.length))} RETURNING "id", "position"`;
  const byPosition = new Map(created.map((item) => [item.position, item]));
  for (const [id, position] of await selectRows(uow.manager, sql, values)) byPosition.get(num(position))!.id = num(id);
  return created;
}

const INSERTED_COLUMNS = ['taskId', 'text', 'state', 'position', 'deleted', 'added', 'note', 'createdAt', 'updatedAt'] as const;

/**
 * Inserts new items marked added, after the item `afterId` (at the end when
 * null), and renumbers the list: the one insert for addItems and addSteps.
 * Returns the new items; `aggregate.items` is the list after it.
 */
export async function insertItemsAfter(uow: UnitOfWork, aggregate: TaskAggregate, texts: readonly string[], afterId: string | null): Promise<ItemEntity[]> {
  const base = aggregate.items.length;
  const created = await insertItems(uow, aggregate.task.id, texts.map((text, index) => ({ text, position: base + index, added: true })));
  const order = insertAfter(aggregate.items.map((item) => String(item.id)), created.map((item) => String(item.id)), afterId);
  aggregate.items = await applyOrder(uow, [...aggregate.items, ...created], order);
  return created;
}

/**
 * Stores a new task row at version 0: a knowledge-base task (sessionId null)
 * or a session's plan (no domain). The one constructor for both.
 */
export async function insertTask(
  uow: UnitOfWork,
  fields: { title: string; domain: string | null; goal: string; sessionId: string | null },
): Promise<MemoryEntity> {
  const task = uow.manager.create(MemoryEntity, {
    kind: 'TASK', ...fields, body: '', archived: false, version: 0, createdAt: uow.now, updatedAt: uow.now,
  });
  task.id = Number((await uow.manager.insert(MemoryEntity, task)).identifiers[0].id);
  return task;
}

/** Gives every item the position of its place in `order` (ids), writing only the ones that moved. */
export async function applyOrder(uow: UnitOfWork, items: ItemEntity[], order: readonly string[]): Promise<ItemEntity[]> {
  const byId = new Map(items.map((item) => [String(item.id), item]));
  const ordered = order.map((id) => byId.get(id)!);
  for (const [position, item] of ordered.entries()) {
    if (item.position === position) continue;
    item.position = position;
    await updateItemRow(uow, item.id, { position });
  }
  return ordered;
}

/** The columns of an item a change may set, in the order every statement names them. */
const ITEM_SETTABLE = ['text', 'state', 'note', 'position', 'deleted', 'updatedAt'] as const;
export type ItemRowChange = Partial<Pick<ItemEntity, (typeof ITEM_SETTABLE)[number]>>;

/**
 * Writes the columns a change sets (those not undefined) of one item, on a
 * fixed statement per set of columns: what every hot write of an item (a
 * state, a note, a move) sends, with no query builder assembling it.
 */
export async function updateItemRow(uow: UnitOfWork, id: number, change: ItemRowChange): Promise<void> {
  const statement = itemRowWrite(id, change);
  if (statement) await runStatement(uow.manager, statement.sql, statement.parameters);
}

/** updateItemRow's statement, for a caller that sends it with another (the claims fence); null when the change sets nothing. */
export function itemRowWrite(id: number, change: ItemRowChange): Statement | null {
  const columns = ITEM_SETTABLE.filter((column) => change[column] !== undefined);
  if (columns.length === 0) return null;
  return { sql: `UPDATE "items" SET ${columns.map((column) => `"${column}" = ?`).join(', ')} WHERE "id" = ?`, parameters: [...columns.map((column) => change[column]), id] };
}

/** The text search sees for a task: its goal and every live item label. */
function searchText(task: MemoryEntity, items: readonly ItemEntity[]): string {
  return [task.goal, ...items.filter((item) => !item.deleted).map((item) => item.text)].join('\n');
}

/** What the search index holds for a task, as one string to compare: title, then text. */
function searchDocument(task: MemoryEntity, items: readonly ItemEntity[]): string {
  return `${task.title}\u0000${searchText(task, items)}`;
}

/**
 * Records a change of a task: bumps its version with a compare-and-set (a
 * concurrent writer that slipped past the lock makes this fail rather than
 * overwrite) and, in the same statement, its counts of live items by state
 * and the state derived from them; writes the history row (what changed,
 * and the list after as a delta from the latest row's: history-rows.ts), keeps the
 * search document current (rewritten only when its title, goal or live
 * labels changed) and queues the change event. Every change of a task's items ends here, so the counts never
 * disagree with the items, nor the ready queue (ready-rows.ts) with them. `itemId` names the item a change
 * that leaves the list as it was is about (what it waits for), for the change log.
 */
export async function recordTaskChange(uow: UnitOfWork, search: SearchIndex, aggregate: TaskAggregate, action: HistoryAction, itemId?: number): Promise<void> {
  const { task, items } = aggregate;
  const counts = countColumns(items);
  const after = snapshotOf(items);
  const changes = diffSnapshots(aggregate.before, after);
  if (!(await writeTaskRows(uow, aggregate, counts, action, after, changes))) checkExpectedVersion(String(task.id), task.version + 1, task.version);
  task.version += 1;
  task.updatedAt = uow.now;
  Object.assign(task, counts);
  aggregate.recorded = after;
  // A state or note change leaves the document as it is, so it is not rewritten: a rewrite costs two
  // statements (an FTS5 delete and insert), which would land on every updateItem.
  if (!task.sessionId && aggregate.searchedAs !== searchDocument(task, items)) {
    await search.index(uow.manager, { id: task.id, title: task.title, text: searchText(task, items) });
  }
  uow.emit({
    entity: 'TASK', id: String(task.id), action, memory: { kind: 'TASK', domain: task.domain },
    about: { itemId: soleItemOf(changes) ?? (itemId === undefined ? null : String(itemId)), sessionId: task.sessionId },
  });
}

/** The version's compare-and-set with the counts: a row back when it moved, none when another writer moved it first. */
const BUMP_TASK = `UPDATE "memories" SET "version" = ?, "updatedAt" = ?, "pendingItems" = ?, "inProgressItems" = ?, "doneItems" = ?, "droppedItems" = ?, "blockedItems" = ?, "failedItems" = ?, "taskState" = ? WHERE "id" = ? AND "version" = ? RETURNING "id"`;

/**
 * recordTaskChange's writes: the task's row (its version bumped with a
 * compare-and-set, its counts and state; false when the version moved), its
 * ready rows (a plan's items are never ready: no claimNext hands them out)
 * and its history row. On PostgreSQL one round trip: the ready rows and the
 * history row are common table expressions of the bump (a failed bump throws
 * in the caller, and the write rolls back with them); both read only rows
 * written before this statement, the ready rows are given the task's state
 * as this bump writes it (refreshAsWritten), and the history lock is taken
 * once the ready rows are written.
 */
async function writeTaskRows(
  uow: UnitOfWork, aggregate: TaskAggregate, counts: ReturnType<typeof countColumns>, action: HistoryAction, after: Snapshot[], changes: ItemChange[],
): Promise<boolean> {
  const { task } = aggregate;
  const bump = [
    task.version + 1, uow.now, counts.pendingItems, counts.inProgressItems, counts.doneItems, counts.droppedItems,
    counts.blockedItems, counts.failedItems, counts.taskState, task.id, task.version,
  ];
  const keepsReadyRows = !task.sessionId;
  if (uow.manager.connection.options.type !== 'postgres') {
    const bumped = await selectRows(uow.manager, BUMP_TASK, bump);
    if (keepsReadyRows) await refreshReadyItems(uow.manager, [task.id]);
    await insertTaskEvent(uow, task.id, action, latestRecorded(aggregate), after, changes);
    return bumped.length > 0;
  }
  const ready = keepsReadyRows ? refreshAsWritten(task.id, counts.taskState === 'OPEN') : null;
  // The history lock after the ready rows' writes, as when they were statements of their own (ReadyRefresh.written).
  const history = await taskEventStatement(uow, task.id, action, latestRecorded(aggregate), after, changes, { lockAfter: ready?.written });
  const bumped = await selectRows(uow.manager, `WITH ${ready ? `${ready.sql}, ` : ''}"history" AS (${history.sql}) ${BUMP_TASK}`,
    [...(ready?.parameters ?? []), ...history.parameters, ...bump]);
  return bumped.length > 0;
}

/** The item a change was about, when it changed exactly one (a state, a rename, a move); null otherwise. */
function soleItemOf(changes: readonly ItemChange[]): string | null {
  const ids = new Set(changes.map((change) => change.itemId));
  return ids.size === 1 ? [...ids][0] : null;
}

/**
 * A plan changed through the task mutations (the dashboard steering it) is
 * changed like any plan update: it stands again above the chat, and a
 * finished session must pass finishSession again.
 */
export async function markPlanChanged(uow: UnitOfWork, aggregate: TaskAggregate): Promise<void> {
  const sessionId = aggregate.task.sessionId;
  if (!sessionId) return;
  await updateSessionRow(uow, sessionId, { planStanding: true, finishedAt: null });
  uow.emit({ entity: 'SESSION', id: sessionId, action: 'PLAN_CHANGED', about: { taskId: String(aggregate.task.id) } });
}

/** Ids of every item of the task, deleted ones included: what its free text may cite. */
export function citableIds(aggregate: TaskAggregate): Set<string> {
  return new Set(aggregate.items.map((item) => String(item.id)));
}
