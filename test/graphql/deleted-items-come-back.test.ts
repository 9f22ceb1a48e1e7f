/** restoreItem, the undo of deleteItem, through GraphQL over HTTP: the item returns as it was, recorded once in history and the change log. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS, DELETE_ITEM, READ_HISTORY, START_SESSION, UPDATE_ITEM, WRITE_TODOS } from '../fixtures/documents.js';
import { readToEnd } from '../fixtures/change-feed.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask, labels, readTask } from '../fixtures/tasks.js';

const RESTORE_ITEM = 'mutation($id: ID!, $expectedVersion: Int) { restoreItem(id: $id, expectedVersion: $expectedVersion) { id text state note number deleted task { id version state } } }';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

describe('restoreItem', () => {
  it('brings a deleted item back where it stood, with its id, state and note, as one history row and one change', async () => {
    const { task, items } = await createTask(server, ['First', 'Second', 'Third'], { domain: 'acme/undo' });
    await server.ok(UPDATE_ITEM, { input: { id: items[1].id, state: 'BLOCKED', comment: 'Waiting on the provider.' } });
    const deleted = (await server.ok(DELETE_ITEM, { id: items[1].id })).deleteItem;
    expect(labels(await readTask(server, task.id))).toEqual(['First', 'Third']);
    const { cursor } = await readToEnd(server.ok.bind(server), null, 'acme/undo');

    const restored = (await server.ok(RESTORE_ITEM, { id: items[1].id, expectedVersion: deleted.version })).restoreItem;
    expect(restored).toMatchObject({ id: items[1].id, text: 'Second', state: 'BLOCKED', note: 'Waiting on the provider.', number: 2, deleted: false,
      task: { id: task.id, version: deleted.version + 1, state: 'OPEN' } });
    expect(labels(await readTask(server, task.id))).toEqual(['First', 'Second', 'Third']);
    const history = (await server.ok(READ_HISTORY, { id: task.id, first: 50 })).task.history.nodes;
    expect(history.at(-1)).toMatchObject({ action: 'ITEM_RESTORED', changes: [{ itemId: items[1].id, kind: 'ADDED', text: 'Second' }] });
    const logged = (await readToEnd(server.ok.bind(server), cursor, 'acme/undo')).changes;
    expect(logged.map((change) => [change.action, change.memoryId])).toEqual([['ITEM_RESTORED', task.id]]);

    // A retried undo answers alike and records nothing more.
    const again = (await server.ok(RESTORE_ITEM, { id: items[1].id })).restoreItem;
    expect(again).toMatchObject({ id: items[1].id, deleted: false, task: { version: deleted.version + 1 } });
  });

  it('is refused, recording nothing, when the task moved on, when a live item took the label, and for an unknown id', async () => {
    const { task, items } = await createTask(server, ['Keep', 'Undo me']);
    const deleted = (await server.ok(DELETE_ITEM, { id: items[1].id })).deleteItem;
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'IN_PROGRESS' } });
    await refusedAndNothingRecorded(server, 'VERSION_CONFLICT', RESTORE_ITEM, { id: items[1].id, expectedVersion: deleted.version });
    await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['Undo me'] } });
    const duplicate = await refusedAndNothingRecorded(server, 'DUPLICATE_TEXT', RESTORE_ITEM, { id: items[1].id });
    expect(duplicate).toContain('"Undo me" is a live item of this task again');
    await refusedAndNothingRecorded(server, 'NOT_FOUND', RESTORE_ITEM, { id: '999999' });
  });

  it("a plan's step comes back for a person, and a locked plan's own session may not bring it back", async () => {
    const session = (await server.ok(START_SESSION, { input: { preset: 'PLAN_AND_FINISH' } })).startSession.id;
    const plan = (await server.ok(WRITE_TODOS, { todos: [{ content: 'Read', status: 'PENDING' }, { content: 'Write', status: 'PENDING' }, { content: 'Check', status: 'PENDING' }] }, { session })).writeTodos;
    expect(plan.plan).toBeTruthy();
    const step = plan.plan.items.nodes[2].id;
    await server.ok(DELETE_ITEM, { id: step });
    const locked = await refusedAndNothingRecorded(server, 'PLAN_LOCKED', RESTORE_ITEM, { id: step }, { session });
    expect(locked).toContain('may not bring back its deleted steps');
    expect((await server.ok(RESTORE_ITEM, { id: step })).restoreItem).toMatchObject({ text: 'Check', deleted: false, number: 3 });
  });
});
