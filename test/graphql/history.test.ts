/** Task.history: one event per recorded change, the list after it, and what changed. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS, DELETE_ITEM, EDIT_TASK, MOVE_ITEM, READ_HISTORY, UPDATE_ITEM } from '../fixtures/documents.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

interface Event {
  id: string; action: string; sessionId: string | null;
  items: { id: string; text: string; state: string }[];
  changes: { itemId: string; kind: string; text: string; from: string | null; to: string | null }[];
}

async function events(taskId: string): Promise<Event[]> {
  return (await server.ok(READ_HISTORY, { id: taskId, first: 200 })).task.history.nodes;
}

describe('history', () => {
  it('walks a task through every kind of change, oldest first, with the list after each', async () => {
    const { task, items } = await createTask(server, ['Key by event id', 'Cover refunds', 'Remove lookup']);
    const [a, b, c] = items.map((item) => item.id);
    await server.ok(UPDATE_ITEM, { input: { id: a, state: 'DONE', comment: 'Checked the handler.' } });
    await server.ok(UPDATE_ITEM, { input: { id: c, text: 'Drop the lookup' } });
    const d = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['Document replays'], after: a } })).addItems.items[0].id;
    await server.ok(MOVE_ITEM, { input: { id: c } });
    await server.ok(DELETE_ITEM, { id: b });
    await server.ok(EDIT_TASK, { input: { id: task.id, goal: `Now with [[#${a}]].` } });

    const history = await events(task.id);
    expect(history.map((event) => event.action)).toEqual([
      'TASK_CREATED', 'ITEM_STATE', 'ITEM_RENAMED', 'ITEMS_ADDED', 'ITEM_MOVED', 'ITEM_DELETED', 'TASK_EDITED',
    ]);
    // Event ids go up in the order the changes happened.
    const ids = history.map((event) => Number(event.id));
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);

    const snapshot = (event: Event) => event.items.map((item) => `${item.id}:${item.text}:${item.state}`);
    expect(snapshot(history[1])).toEqual([`${a}:Key by event id:DONE`, `${b}:Cover refunds:PENDING`, `${c}:Remove lookup:PENDING`]);
    expect(history[1].changes).toEqual([{ itemId: a, kind: 'STATE', text: 'Key by event id', from: 'PENDING', to: 'DONE' }]);

    expect(history[2].changes).toEqual([{ itemId: c, kind: 'RENAMED', text: 'Drop the lookup', from: 'Remove lookup', to: 'Drop the lookup' }]);

    expect(snapshot(history[3])).toEqual([
      `${a}:Key by event id:DONE`, `${d}:Document replays:PENDING`, `${b}:Cover refunds:PENDING`, `${c}:Drop the lookup:PENDING`,
    ]);
    // An insertion shifts later items without anyone moving them: only ADDED is reported.
    expect(history[3].changes).toEqual([{ itemId: d, kind: 'ADDED', text: 'Document replays', from: null, to: 'PENDING' }]);

    expect(snapshot(history[4]).map((entry) => entry.split(':')[0])).toEqual([c, a, d, b]);
    expect(history[4].changes).toEqual([{ itemId: c, kind: 'MOVED', text: 'Drop the lookup', from: '4', to: '1' }]);

    expect(snapshot(history[5]).map((entry) => entry.split(':')[0])).toEqual([c, a, d]);
    expect(history[5].changes).toEqual([{ itemId: b, kind: 'REMOVED', text: 'Cover refunds', from: 'PENDING', to: null }]);

    expect(history[6].items).toEqual(history[5].items);
    expect(history[6].changes).toEqual([]);
  });

  it('records a rename and a state change sent together as one event with both changes', async () => {
    const { task, items } = await createTask(server, ['Old label']);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'IN_PROGRESS', text: 'New label' } });
    const history = await events(task.id);
    expect(history).toHaveLength(2);
    expect(history[1].changes.map((change) => change.kind).sort()).toEqual(['RENAMED', 'STATE']);
    expect(history[1].items).toEqual([{ id: items[0].id, text: 'New label', state: 'IN_PROGRESS' }]);
  });

  it('names the calling session (x-session-id) on the events it made, and null otherwise', async () => {
    const { task, items } = await createTask(server, ['A', 'B']);
    const session = (await server.ok('mutation { startSession { id } }')).startSession.id;
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE' } }, { session });
    await server.ok(UPDATE_ITEM, { input: { id: items[1].id, state: 'DONE' } });
    // A header that names no started session is refused, so it is never written into history.
    expect((await server.refused(UPDATE_ITEM, { input: { id: items[1].id, state: 'PENDING' } }, { session: 'agent-session-7' })).code).toBe('NO_SESSION');
    const history = await events(task.id);
    expect(history.map((event) => event.sessionId)).toEqual([null, session, null]);
  });

  it('records nothing for refused changes or same-state updates', async () => {
    const { task, items } = await createTask(server, ['A', 'B']);
    await server.refused(UPDATE_ITEM, { input: { id: items[0].id, text: 'B' } });
    await server.refused(ADD_ITEMS, { input: { taskId: task.id, items: ['A'] } });
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'PENDING' } });
    expect((await events(task.id)).map((event) => event.action)).toEqual(['TASK_CREATED']);
  });

  it('keeps each task\'s history to itself', async () => {
    const one = await createTask(server, ['A']);
    const two = await createTask(server, ['A']);
    await server.ok(UPDATE_ITEM, { input: { id: one.items[0].id, state: 'DONE' } });
    expect((await events(one.task.id)).length).toBe(2);
    expect((await events(two.task.id)).length).toBe(1);
  });
});
