/** updateItem, deleteItem, addItems and moveItem, through GraphQL over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS, DELETE_ITEM, MOVE_ITEM, READ_HISTORY, READ_ITEMS_WITH_DELETED, UPDATE_ITEM } from '../fixtures/documents.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask, labels, readTask, type Item } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function historyOf(id: string) {
  return (await server.ok(READ_HISTORY, { id, first: 200 })).task.history;
}

describe('updateItem', () => {
  it('changes the state and records one ITEM_STATE event', async () => {
    const { task, items } = await createTask(server, ['A', 'B']);
    const updated = (await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'IN_PROGRESS' } })).updateItem;
    expect(updated).toMatchObject({ id: items[0].id, state: 'IN_PROGRESS', number: 1, task: { id: task.id, version: 2 } });
    const history = await historyOf(task.id);
    expect(history.totalCount).toBe(2);
    expect(history.nodes[1]).toMatchObject({
      action: 'ITEM_STATE',
      changes: [{ itemId: items[0].id, kind: 'STATE', text: 'A', from: 'PENDING', to: 'IN_PROGRESS' }],
    });
  });

  it('renames an item: the id and state stay, the label is trimmed', async () => {
    const { task, items } = await createTask(server, ['Remove the lookup', 'Other']);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'IN_PROGRESS' } });
    const renamed = (await server.ok(UPDATE_ITEM, { input: { id: items[0].id, text: '  Drop the charge-id lookup ' } })).updateItem;
    expect(renamed).toMatchObject({ id: items[0].id, text: 'Drop the charge-id lookup', state: 'IN_PROGRESS', number: 1 });
    expect(labels(await readTask(server, task.id))).toEqual(['Drop the charge-id lookup', 'Other']);
    const last = (await historyOf(task.id)).nodes.at(-1);
    expect(last).toMatchObject({
      action: 'ITEM_RENAMED',
      changes: [{ itemId: items[0].id, kind: 'RENAMED', text: 'Drop the charge-id lookup', from: 'Remove the lookup', to: 'Drop the charge-id lookup' }],
    });
  });

  it('keeps a comment sent with a state change as the item note; a later state change without one clears it', async () => {
    const { items } = await createTask(server, ['Key by event id']);
    const done = (await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE', comment: ' Handler keys off the event id. ' } })).updateItem;
    expect(done).toMatchObject({ state: 'DONE', note: 'Handler keys off the event id.' });
    const reopened = (await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'PENDING' } })).updateItem;
    expect(reopened.note).toBeNull();
  });

  it('records a comment without a state change, but does not make it the note', async () => {
    const { task, items } = await createTask(server, ['A']);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'BLOCKED', comment: 'Waiting on the provider docs.' } });
    const commented = (await server.ok(UPDATE_ITEM, { input: { id: items[0].id, comment: 'Pinged them again.' } })).updateItem;
    expect(commented).toMatchObject({ state: 'BLOCKED', note: 'Waiting on the provider docs.', task: { version: 3 } });
    expect((await historyOf(task.id)).nodes.map((e: { action: string }) => e.action)).toEqual(['TASK_CREATED', 'ITEM_STATE', 'COMMENT_ADDED']);
  });

  it('setting the state an item already has is accepted and records nothing', async () => {
    const { task, items } = await createTask(server, ['A']);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE' } });
    const before = await readTask(server, task.id);
    const same = (await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE' } })).updateItem;
    expect(same).toMatchObject({ state: 'DONE', task: { version: before.version } });
    expect((await readTask(server, task.id)).version).toBe(before.version);
    expect((await historyOf(task.id)).totalCount).toBe(2);
  });

  it('renaming to the label the item already has (a retried rename) is accepted and records nothing', async () => {
    const { task, items } = await createTask(server, ['Drop the lookup']);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, text: 'Drop the lookup' } });
    const retried = (await server.ok(UPDATE_ITEM, { input: { id: items[0].id, text: ' Drop the lookup ' } })).updateItem;
    expect(retried).toMatchObject({ text: 'Drop the lookup', task: { version: 1 } });
    expect((await historyOf(task.id)).totalCount).toBe(1);
  });

  it('refuses a call that asks for nothing with BAD_USER_INPUT, naming what it takes', async () => {
    const { items } = await createTask(server, ['A']);
    const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', UPDATE_ITEM, { input: { id: items[0].id } });
    expect(message).toMatch(/state, text, comment, related or after/);
  });

  it('with taskId, refuses an item of another task with NOT_FOUND and changes nothing; with its own task, goes ahead', async () => {
    const mine = await createTask(server, ['Mine']);
    const other = await createTask(server, ['Theirs']);
    const message = await refusedAndNothingRecorded(server, 'NOT_FOUND', UPDATE_ITEM, { input: { id: other.items[0].id, taskId: mine.task.id, state: 'DONE' } });
    expect(message).toContain(`Task ${mine.task.id} has no item with id "${other.items[0].id}"`);
    // A taskId that names no task is refused for that, the caller's real mistake.
    expect(await refusedAndNothingRecorded(server, 'NOT_FOUND', UPDATE_ITEM, { input: { id: mine.items[0].id, taskId: 'no-such-task', state: 'DONE' } })).toContain('No task has id "no-such-task"');
    const updated = (await server.ok(UPDATE_ITEM, { input: { id: mine.items[0].id, taskId: mine.task.id, state: 'DONE' } })).updateItem;
    expect(updated).toMatchObject({ id: mine.items[0].id, state: 'DONE', task: { id: mine.task.id } });
  });

  it('renaming to another live label is DUPLICATE_TEXT; to a deleted item\'s label is fine', async () => {
    const { items } = await createTask(server, ['Alpha', 'Beta', 'Gamma']);
    const message = await refusedAndNothingRecorded(server, 'DUPLICATE_TEXT', UPDATE_ITEM, { input: { id: items[0].id, text: ' Beta ' } });
    expect(message).toContain('"Beta"');
    await server.ok(DELETE_ITEM, { id: items[2].id });
    expect((await server.ok(UPDATE_ITEM, { input: { id: items[0].id, text: 'Gamma' } })).updateItem.text).toBe('Gamma');
  });
});

describe('deleteItem', () => {
  it('closes up numbers, moves no id, and shows deleted items (number null) only with includeDeleted', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C']);
    const after = (await server.ok(DELETE_ITEM, { id: items[1].id })).deleteItem;
    expect(after.version).toBe(2);
    expect(after.items.nodes.map((i: Item) => [i.id, i.number, i.text])).toEqual([[items[0].id, 1, 'A'], [items[2].id, 2, 'C']]);
    expect(after.items.totalCount).toBe(2);

    const all = (await server.ok(READ_ITEMS_WITH_DELETED, { id: task.id })).task.items;
    expect(all.totalCount).toBe(3);
    expect(all.nodes.map((i: Item) => [i.id, i.number, i.deleted])).toEqual([
      [items[0].id, 1, false], [items[1].id, null, true], [items[2].id, 2, false],
    ]);
    const item = (await server.ok(`query($id: ID!) { item(id: $id) { id number text deleted } }`, { id: items[1].id })).item;
    expect(item).toEqual({ id: items[1].id, number: null, text: 'B', deleted: true });

    const last = (await historyOf(task.id)).nodes.at(-1);
    expect(last).toMatchObject({
      action: 'ITEM_DELETED',
      items: [{ id: items[0].id, text: 'A', state: 'PENDING' }, { id: items[2].id, text: 'C', state: 'PENDING' }],
      changes: [{ itemId: items[1].id, kind: 'REMOVED', text: 'B', from: 'PENDING', to: null }],
    });
  });

  it('never reuses an id: an item added after a delete gets a new id, even with the same label', async () => {
    const { task, items } = await createTask(server, ['A', 'B']);
    await server.ok(DELETE_ITEM, { id: items[1].id });
    const added = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['B'] } })).addItems.items;
    expect(items.map((i) => i.id)).not.toContain(added[0].id);
    expect(Number(added[0].id)).toBeGreaterThan(Math.max(...items.map((i) => Number(i.id))));
    expect(added[0]).toMatchObject({ text: 'B', number: 2, deleted: false });
  });

  it('refuses changing a deleted item with DELETED_ITEM, naming it and what to do instead', async () => {
    const { task, items } = await createTask(server, ['Cover refunds', 'Other']);
    await server.ok(DELETE_ITEM, { id: items[0].id });
    const id = items[0].id;
    const updateMessage = await refusedAndNothingRecorded(server, 'DELETED_ITEM', UPDATE_ITEM, { input: { id, state: 'DONE' } });
    expect(updateMessage).toContain('Cover refunds');
    expect(updateMessage).toMatch(/addItems/);
    await refusedAndNothingRecorded(server, 'DELETED_ITEM', UPDATE_ITEM, { input: { id, text: 'Renamed' } });
    await refusedAndNothingRecorded(server, 'DELETED_ITEM', DELETE_ITEM, { id });
    await refusedAndNothingRecorded(server, 'DELETED_ITEM', MOVE_ITEM, { input: { id } });
    await refusedAndNothingRecorded(server, 'DELETED_ITEM', MOVE_ITEM, { input: { id: items[1].id, after: id } });
    await refusedAndNothingRecorded(server, 'DELETED_ITEM', ADD_ITEMS, { input: { taskId: task.id, items: ['New'], after: id } });
  });
});

describe('addItems', () => {
  it('appends at the end, marked added, numbered after the others', async () => {
    const { task } = await createTask(server, ['A', 'B']);
    const result = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: [' C ', 'D'] } })).addItems;
    expect(result.items.map((i: Item) => [i.text, i.number, i.added, i.state])).toEqual([['C', 3, true, 'PENDING'], ['D', 4, true, 'PENDING']]);
    expect(labels(result.task)).toEqual(['A', 'B', 'C', 'D']);
    expect(result.task.items.nodes.map((i: Item) => i.added)).toEqual([false, false, true, true]);
    expect(result.task.version).toBe(2);
    const last = (await historyOf(task.id)).nodes.at(-1);
    expect(last.action).toBe('ITEMS_ADDED');
    expect(last.changes).toEqual(result.items.map((i: Item) => ({ itemId: i.id, kind: 'ADDED', text: i.text, from: null, to: 'PENDING' })));
  });

  it('inserts after a given item, and the later items renumber', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C']);
    const result = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['A1', 'A2'], after: items[0].id } })).addItems;
    expect(labels(result.task)).toEqual(['A', 'A1', 'A2', 'B', 'C']);
    expect(result.items.map((i: Item) => i.number)).toEqual([2, 3]);
    expect(result.task.items.nodes.map((i: Item) => i.number)).toEqual([1, 2, 3, 4, 5]);
    // Ids of the items already there do not move.
    expect(result.task.items.nodes.filter((i: Item) => !i.added).map((i: Item) => i.id)).toEqual(items.map((i) => i.id));
  });

  it('inserts after the last item like an append, and after an item that follows a deleted one', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C']);
    await server.ok(DELETE_ITEM, { id: items[1].id });
    const result = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['X'], after: items[2].id } })).addItems;
    expect(labels(result.task)).toEqual(['A', 'C', 'X']);
    const withDeleted = (await server.ok(READ_ITEMS_WITH_DELETED, { id: task.id })).task.items.nodes;
    expect(withDeleted.map((i: Item) => i.text)).toEqual(['A', 'B', 'C', 'X']);
  });

  it('reopens a COMPLETED task (ARCHIVED becomes ACTIVE)', async () => {
    const { task, items } = await createTask(server, ['A']);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE' } });
    expect(await readTask(server, task.id)).toMatchObject({ state: 'COMPLETED', status: 'ARCHIVED' });
    const result = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['Document the replay queue'] } })).addItems;
    expect(result.task).toMatchObject({ state: 'OPEN', status: 'ACTIVE' });
    expect(result.items[0].added).toBe(true);
  });

  it('reopens a CANCELLED task too', async () => {
    const { task, items } = await createTask(server, ['A']);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DROPPED' } });
    expect((await readTask(server, task.id)).state).toBe('CANCELLED');
    const result = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['Try again'] } })).addItems;
    expect(result.task).toMatchObject({ state: 'OPEN', status: 'ACTIVE' });
  });

  it('refuses an empty list with BAD_USER_INPUT and an item of another task with NOT_FOUND', async () => {
    const { task } = await createTask(server, ['A']);
    const { items: others } = await createTask(server, ['Elsewhere']);
    await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', ADD_ITEMS, { input: { taskId: task.id, items: [] } });
    const message = await refusedAndNothingRecorded(server, 'NOT_FOUND', ADD_ITEMS, { input: { taskId: task.id, items: ['B'], after: others[0].id } });
    expect(message).toContain(others[0].id);
  });
});

describe('moveItem', () => {
  it('moves an item first when after is null; ids stay, numbers follow', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C']);
    const moved = (await server.ok(MOVE_ITEM, { input: { id: items[2].id } })).moveItem;
    expect(moved.items.nodes.map((i: Item) => [i.id, i.number, i.text])).toEqual([
      [items[2].id, 1, 'C'], [items[0].id, 2, 'A'], [items[1].id, 3, 'B'],
    ]);
    expect(moved.version).toBe(2);
    const last = (await historyOf(task.id)).nodes.at(-1);
    expect(last.action).toBe('ITEM_MOVED');
    expect(last.changes).toEqual([{ itemId: items[2].id, kind: 'MOVED', text: 'C', from: '3', to: '1' }]);
  });

  it('moves an item after another', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C', 'D']);
    await server.ok(MOVE_ITEM, { input: { id: items[0].id, after: items[2].id } });
    expect(labels(await readTask(server, task.id))).toEqual(['B', 'C', 'A', 'D']);
    await server.ok(MOVE_ITEM, { input: { id: items[3].id, after: items[1].id } });
    expect(labels(await readTask(server, task.id))).toEqual(['B', 'D', 'C', 'A']);
  });

  it('refuses placing an item after itself (BAD_USER_INPUT) or after an item of another task (NOT_FOUND)', async () => {
    const { items } = await createTask(server, ['A', 'B']);
    const { items: others } = await createTask(server, ['Elsewhere']);
    await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', MOVE_ITEM, { input: { id: items[0].id, after: items[0].id } });
    await refusedAndNothingRecorded(server, 'NOT_FOUND', MOVE_ITEM, { input: { id: items[0].id, after: others[0].id } });
  });
});

describe('retried calls that change nothing', () => {
  it('editTask with what the task already says records nothing', async () => {
    const { task } = await createTask(server, ['Only item']);
    const before = await historyOf(task.id);
    const edited = await server.ok('mutation($input: EditTaskInput!) { editTask(input: $input) { version title } }', {
      input: { id: task.id, title: task.title, domain: 'acme/checkout/billing' },
    });
    expect(edited.editTask.version).toBe(before.totalCount);
    expect((await historyOf(task.id)).totalCount).toBe(before.totalCount);
  });

  it('linking a memory already linked records nothing', async () => {
    const { task, items } = await createTask(server, ['Link me']);
    const note = await server.ok('mutation { createNote(input: { title: "Why", body: "Because.", domain: "acme" }) { id } }');
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, related: [note.createNote.id] } });
    const linked = await historyOf(task.id);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, related: [note.createNote.id] } });
    expect((await historyOf(task.id)).totalCount).toBe(linked.totalCount);
    const related = await server.ok('query($id: ID!) { item(id: $id) { related { id } } }', { id: items[0].id });
    expect(related.item.related).toEqual([{ id: note.createNote.id }]);
  });
});

describe('several mutations in one document', () => {
  it('each answers with the task as it stands after it, not as an earlier one loaded it', async () => {
    const { items } = await createTask(server, ['First', 'Second']);
    const data = await server.ok(`mutation($a: ID!, $b: ID!) {
      one: updateItem(input: { id: $a, state: DONE }) { task { state progress { done } } }
      two: updateItem(input: { id: $b, state: DONE }) { task { state progress { done } } }
    }`, { a: items[0].id, b: items[1].id });
    expect(data.one.task).toEqual({ state: 'OPEN', progress: { done: 1 } });
    expect(data.two.task).toEqual({ state: 'COMPLETED', progress: { done: 2 } });
  });

  it('numbers an item, and renders what the goal cites, by the list as it stands after each, once one mutation deleted an item', async () => {
    const { task, items } = await createTask(server, ['First', 'Second', 'Third']);
    await server.ok(`mutation($input: EditTaskInput!) { editTask(input: $input) { id } }`, { input: { id: task.id, goal: `Finish [[#${items[2].id}]].` } });
    const data = await server.ok(`mutation($a: ID!, $c: ID!) {
      before: updateItem(input: { id: $c, state: IN_PROGRESS }) { number task { goalRefs { number } goalText } }
      gone: deleteItem(id: $a) { id }
      after: updateItem(input: { id: $c, state: DONE }) { number task { goalRefs { number } goalText } }
    }`, { a: items[0].id, c: items[2].id });
    expect(data.before).toEqual({ number: 3, task: { goalRefs: [{ number: 3 }], goalText: 'Finish [#3 Third].' } });
    expect(data.after).toEqual({ number: 2, task: { goalRefs: [{ number: 2 }], goalText: 'Finish [#2 Third].' } });
  });
});
