/**
 * Operations and checks the task tests share: the GraphQL documents they
 * send, a task factory, and the "nothing was recorded" check every refusal
 * test ends with.
 */
import { expect } from 'vitest';
import { CREATE_TASK, TASK_FIELDS, type TestServer } from './harness.js';

export { CREATE_TASK, TASK_FIELDS };

export const ITEM_FIELDS = 'id number text state deleted added note';

export const READ_TASK = `query($id: ID!) { task(id: $id) { ${TASK_FIELDS} inProgress { id text } } }`;
export const READ_ITEMS_WITH_DELETED = `query($id: ID!) { task(id: $id) { id items(first: 200, includeDeleted: true) { totalCount nodes { ${ITEM_FIELDS} } } } }`;
export const READ_HISTORY = `query($id: ID!, $first: Int, $after: String) {
  task(id: $id) { id history(first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { cursor }
    nodes { id action sessionId items { id text state } changes { itemId kind text from to } }
  } }
}`;
export const EDIT_TASK = `mutation($input: EditTaskInput!) { editTask(input: $input) { id title goal goalText goalRefs { id number text deleted } domain version state } }`;
export const UPDATE_ITEM = `mutation($input: UpdateItemInput!) { updateItem(input: $input) { ${ITEM_FIELDS} task { id version state status } } }`;
export const DELETE_ITEM = `mutation($id: ID!) { deleteItem(id: $id) { ${TASK_FIELDS} } }`;
export const ADD_ITEMS = `mutation($input: AddItemsInput!) { addItems(input: $input) { task { ${TASK_FIELDS} } items { ${ITEM_FIELDS} } } }`;
export const MOVE_ITEM = `mutation($input: MoveItemInput!) { moveItem(input: $input) { ${TASK_FIELDS} } }`;

export interface Item { id: string; number: number | null; text: string; state: string; deleted: boolean; added: boolean; note: string | null }
export interface TaskView {
  id: string; title: string; goal: string; goalText: string; domain: string; state: string; status: string; version: number; kind: string;
  progress: Record<'done' | 'total' | 'pending' | 'inProgress' | 'dropped' | 'blocked' | 'failed', number>;
  items: { totalCount: number; nodes: Item[] };
  inProgress?: { id: string; text: string }[];
}

let counter = 0;

/** Creates a task with these item labels (a fresh title each time) and returns it with its items. */
export async function createTask(
  server: TestServer,
  items: string[],
  extra: Record<string, unknown> = {},
): Promise<{ task: TaskView; items: Item[] }> {
  counter += 1;
  const data = await server.ok(CREATE_TASK, {
    input: { title: `Task ${counter}`, goal: 'Keep the checklist honest.', items, domain: 'acme/checkout/billing', ...extra },
  });
  return data.createTask;
}

export async function readTask(server: TestServer, id: string): Promise<TaskView> {
  const data = await server.ok(READ_TASK, { id });
  expect(data.task, `task ${id} should exist`).not.toBeNull();
  return data.task;
}

/** Row counts of every table a task mutation writes: equal before and after means nothing was recorded. */
export async function recordedRows(server: TestServer): Promise<Record<string, number>> {
  const tables = ['memories', 'items', 'task_events', 'comments', 'item_links', 'idempotency_keys', 'session_domains'];
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const [row] = await server.app.services.db.reader.query(`SELECT count(*) AS n FROM "${table}"`);
    counts[table] = Number(row.n);
  }
  const [versions] = await server.app.services.db.reader.query('SELECT coalesce(sum("version"), 0) AS v FROM "memories"');
  counts.versionSum = Number(versions.v);
  // Every item's label, state, place and deleted flag, and every task's title, domain and goal, so an in-place change shows too.
  const [items] = await server.app.services.db.reader.query(
    `SELECT group_concat("id" || ':' || "text" || ':' || "state" || ':' || "position" || ':' || "deleted", '|') AS s FROM (SELECT * FROM "items" ORDER BY "id")`,
  );
  counts.itemsDigest = hash(String(items.s ?? ''));
  const [memories] = await server.app.services.db.reader.query(
    `SELECT group_concat("id" || ':' || "title" || ':' || coalesce("domain", '') || ':' || "goal", '|') AS s FROM (SELECT * FROM "memories" ORDER BY "id")`,
  );
  counts.memoriesDigest = hash(String(memories.s ?? ''));
  return counts;
}

function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i += 1) h = (Math.imul(31, h) + text.charCodeAt(i)) | 0;
  return h;
}

/**
 * Sends `query`, expects it refused with `code`, and checks that nothing was
 * recorded: no row in any table, no version bump, no item changed. Returns the
 * message so a test can check it tells the agent what to do.
 */
export async function expectRefusedAndNothingRecorded(
  server: TestServer,
  code: string,
  query: string,
  variables: Record<string, unknown>,
): Promise<string> {
  const before = await recordedRows(server);
  const error = await server.refused(query, variables);
  expect(error.code, error.message).toBe(code);
  expect(await recordedRows(server)).toEqual(before);
  return error.message;
}

/** Labels of a task's live items, in list order. */
export function labels(task: Pick<TaskView, 'items'>): string[] {
  return task.items.nodes.map((item) => item.text);
}
