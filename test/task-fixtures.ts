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

export { databaseState, refusedAndNothingRecorded } from './nothing-recorded.js';

/** Labels of a task's live items, in list order. */
export function labels(task: Pick<TaskView, 'items'>): string[] {
  return task.items.nodes.map((item) => item.text);
}
