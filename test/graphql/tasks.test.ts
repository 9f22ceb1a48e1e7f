/** createTask, editTask and the task/item/memory queries, through GraphQL over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CREATE_TASK, EDIT_TASK, READ_HISTORY } from '../fixtures/documents.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask, labels, readTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

describe('createTask', () => {
  it('takes items as a list: trimmed, numbered in order, PENDING, not marked added', async () => {
    const { task, items } = await createTask(server, ['  Key charge.succeeded by event id ', 'Cover refunds and disputes', 'Remove the charge-id lookup']);
    expect(items.map((item) => [item.number, item.text, item.state])).toEqual([
      [1, 'Key charge.succeeded by event id', 'PENDING'],
      [2, 'Cover refunds and disputes', 'PENDING'],
      [3, 'Remove the charge-id lookup', 'PENDING'],
    ]);
    expect(task.items.nodes.map((item) => item.added)).toEqual([false, false, false]);
    expect(task).toMatchObject({ kind: 'TASK', state: 'OPEN', status: 'ACTIVE', version: 1, domain: 'acme/checkout/billing' });
    expect(new Set(items.map((item) => item.id)).size).toBe(3);
    for (const item of items) expect(item.id).toMatch(/^\d+$/);
  });

  it('takes itemsText, one label per line, skipping blank lines and accepting CRLF', async () => {
    const data = await server.ok(CREATE_TASK, {
      input: { title: 'Lines', goal: 'Split on lines.', itemsText: 'Write the spec\r\n\r\n  Review the spec  \nShip it\n', domain: 'ops/infra' },
    });
    expect(labels(data.createTask.task)).toEqual(['Write the spec', 'Review the spec', 'Ship it']);
    expect(data.createTask.items.map((item: { number: number }) => item.number)).toEqual([1, 2, 3]);
  });

  it('trims the title, goal and domain it stores', async () => {
    const data = await server.ok(CREATE_TASK, {
      input: { title: '  Trim me  ', goal: '  A goal with spaces.  ', items: ['One'], domain: ' ops/infra ' },
    });
    expect(data.createTask.task).toMatchObject({ title: 'Trim me', goal: 'A goal with spaces.', domain: 'ops/infra' });
  });

  it('accepts a task with no items, which is OPEN', async () => {
    const { task, items } = await createTask(server, []);
    expect(items).toEqual([]);
    expect(task).toMatchObject({ state: 'OPEN', status: 'ACTIVE', progress: { total: 0, done: 0 } });
  });

  it('refuses items and itemsText together with BAD_USER_INPUT, and records nothing', async () => {
    const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CREATE_TASK, {
      input: { title: 'Both', goal: 'g', items: ['A'], itemsText: 'B', domain: 'ops/infra' },
    });
    expect(message).toMatch(/items.*itemsText|itemsText.*items/);
  });

  it('records one TASK_CREATED event listing every item as ADDED', async () => {
    const { task, items } = await createTask(server, ['First', 'Second']);
    const history = (await server.ok(READ_HISTORY, { id: task.id })).task.history;
    expect(history.totalCount).toBe(1);
    expect(history.nodes[0].action).toBe('TASK_CREATED');
    expect(history.nodes[0].items).toEqual(items.map((item) => ({ id: item.id, text: item.text, state: 'PENDING' })));
    expect(history.nodes[0].changes).toEqual(items.map((item) => ({ itemId: item.id, kind: 'ADDED', text: item.text, from: null, to: 'PENDING' })));
  });
});

describe('editTask', () => {
  it('changes title, goal and domain in place and bumps the version once', async () => {
    const { task } = await createTask(server, ['Alpha']);
    const edited = (await server.ok(EDIT_TASK, {
      input: { id: task.id, title: 'Renamed task', goal: 'A new goal.', domain: 'acme/checkout/ui' },
    })).editTask;
    expect(edited).toMatchObject({ id: task.id, title: 'Renamed task', goal: 'A new goal.', domain: 'acme/checkout/ui', version: 2 });
    const history = (await server.ok(READ_HISTORY, { id: task.id })).task.history;
    expect(history.nodes.map((event: { action: string }) => event.action)).toEqual(['TASK_CREATED', 'TASK_EDITED']);
    expect(history.nodes[1].changes).toEqual([]);
  });

  it('keeps fields it was not given', async () => {
    const { task } = await createTask(server, ['Alpha']);
    await server.ok(EDIT_TASK, { input: { id: task.id, goal: 'Only the goal changes.' } });
    const read = await readTask(server, task.id);
    expect(read).toMatchObject({ title: task.title, domain: task.domain, goal: 'Only the goal changes.' });
  });

  it('lets the goal cite an item as [[#id]], rendered with its current number and label', async () => {
    const { task, items } = await createTask(server, ['Key by event id', 'Cover refunds and disputes']);
    const goal = `Finish [[#${items[1].id}]] after [[#${items[0].id}]], then [[#${items[1].id}]] again.`;
    const edited = (await server.ok(EDIT_TASK, { input: { id: task.id, goal } })).editTask;
    expect(edited.goal).toBe(goal);
    expect(edited.goalText).toBe('Finish [#2 Cover refunds and disputes] after [#1 Key by event id], then [#2 Cover refunds and disputes] again.');
    expect(edited.goalRefs).toEqual([
      { id: items[1].id, number: 2, text: 'Cover refunds and disputes', deleted: false },
      { id: items[0].id, number: 1, text: 'Key by event id', deleted: false },
    ]);
  });

  it('refuses an edit with nothing to change, recording nothing', async () => {
    const { task } = await createTask(server, ['Alpha']);
    const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', EDIT_TASK, { input: { id: task.id } });
    expect(message).toMatch(/title, goal or domain/);
  });
});

describe('reading tasks, items and memories', () => {
  const MEMORY = `query($id: ID!) { memory(id: $id) { __typename id kind title domain status ... on Task { version state } } }`;
  const ITEM = `query($id: ID!) { item(id: $id) { id number text state deleted task { id title } } }`;

  it('task(id) returns the task; memory(id) returns it as a Task; item(id) returns the item and its task', async () => {
    const { task, items } = await createTask(server, ['Alpha', 'Beta']);
    expect((await readTask(server, task.id)).title).toBe(task.title);
    expect((await server.ok(MEMORY, { id: task.id })).memory).toEqual({
      __typename: 'Task', id: task.id, kind: 'TASK', title: task.title, domain: task.domain, status: 'ACTIVE', version: 1, state: 'OPEN',
    });
    expect((await server.ok(ITEM, { id: items[1].id })).item).toEqual({
      id: items[1].id, number: 2, text: 'Beta', state: 'PENDING', deleted: false, task: { id: task.id, title: task.title },
    });
  });

  it('returns null (not an error) for unknown or malformed ids', async () => {
    for (const id of ['999999', 'abc', '-1', '']) {
      const result = await server.gql(`query($id: ID!) { task(id: $id) { id } memory(id: $id) { id } item(id: $id) { id } }`, { id });
      expect(result.errors, `id ${JSON.stringify(id)}`).toBeUndefined();
      expect(result.data).toEqual({ task: null, memory: null, item: null });
    }
  });
});

describe('derived state, status, progress and inProgress', () => {
  const SET_STATE = `mutation($id: ID!, $state: ItemState!) { updateItem(input: { id: $id, state: $state }) { id state } }`;
  async function setStates(ids: string[], states: string[]): Promise<void> {
    for (const [index, id] of ids.entries()) await server.ok(SET_STATE, { id, state: states[index] });
  }

  it('is OPEN/ACTIVE while any item is PENDING or IN_PROGRESS', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C']);
    await setStates(items.map((i) => i.id), ['DONE', 'IN_PROGRESS', 'DONE']);
    const read = await readTask(server, task.id);
    expect(read).toMatchObject({ state: 'OPEN', status: 'ACTIVE' });
    expect(read.inProgress).toEqual([{ id: items[1].id, text: 'B' }]);
  });

  it('is COMPLETED/ARCHIVED once every live item is DONE or DROPPED and one is DONE', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C']);
    await setStates(items.map((i) => i.id), ['DONE', 'DROPPED', 'DONE']);
    const read = await readTask(server, task.id);
    expect(read).toMatchObject({ state: 'COMPLETED', status: 'ARCHIVED' });
    expect(read.progress).toEqual({ done: 2, total: 3, pending: 0, inProgress: 0, dropped: 1, blocked: 0, failed: 0 });
    expect(read.inProgress).toEqual([]);
  });

  it('stays OPEN/ACTIVE while an item is BLOCKED or FAILED: stuck work still needs someone', async () => {
    for (const stuck of ['BLOCKED', 'FAILED']) {
      const { task, items } = await createTask(server, ['A', 'B', 'C']);
      await setStates(items.map((i) => i.id), ['DONE', stuck, 'DROPPED']);
      const read = await readTask(server, task.id);
      expect(read, stuck).toMatchObject({ state: 'OPEN', status: 'ACTIVE' });
      expect(read.progress).toMatchObject({ done: 1, total: 3, dropped: 1, [stuck.toLowerCase()]: 1 });
      // Once the stuck item is settled, the task closes.
      await setStates([items[1].id], ['DONE']);
      expect(await readTask(server, task.id), stuck).toMatchObject({ state: 'COMPLETED', status: 'ARCHIVED' });
    }
  });

  it('is CANCELLED/ARCHIVED only when every live item is DROPPED', async () => {
    const dropped = await createTask(server, ['A', 'B']);
    await setStates(dropped.items.map((i) => i.id), ['DROPPED', 'DROPPED']);
    expect(await readTask(server, dropped.task.id)).toMatchObject({ state: 'CANCELLED', status: 'ARCHIVED' });

    const stuck = await createTask(server, ['A', 'B']);
    await setStates(stuck.items.map((i) => i.id), ['BLOCKED', 'FAILED']);
    expect(await readTask(server, stuck.task.id)).toMatchObject({ state: 'OPEN', status: 'ACTIVE' });
  });

  it('reopens (OPEN/ACTIVE) when a settled item goes back to PENDING', async () => {
    const { task, items } = await createTask(server, ['A']);
    await setStates([items[0].id], ['DONE']);
    expect(await readTask(server, task.id)).toMatchObject({ state: 'COMPLETED', status: 'ARCHIVED' });
    await setStates([items[0].id], ['PENDING']);
    expect(await readTask(server, task.id)).toMatchObject({ state: 'OPEN', status: 'ACTIVE' });
  });

  it('counts every state in progress, and lists in-progress items in list order', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C', 'D', 'E', 'F', 'G']);
    await setStates(items.map((i) => i.id), ['IN_PROGRESS', 'DONE', 'PENDING', 'IN_PROGRESS', 'DROPPED', 'BLOCKED', 'FAILED']);
    const read = await readTask(server, task.id);
    expect(read.progress).toEqual({ done: 1, total: 7, pending: 1, inProgress: 2, dropped: 1, blocked: 1, failed: 1 });
    expect(read.inProgress).toEqual([{ id: items[0].id, text: 'A' }, { id: items[3].id, text: 'D' }]);
    expect(read.state).toBe('OPEN');
  });

  it('leaves deleted items out of state and progress: deleting the last open item completes the task', async () => {
    const { task, items } = await createTask(server, ['A', 'B']);
    await setStates([items[0].id], ['DONE']);
    await server.ok(`mutation($id: ID!) { deleteItem(id: $id) { id } }`, { id: items[1].id });
    const read = await readTask(server, task.id);
    expect(read).toMatchObject({ state: 'COMPLETED', status: 'ARCHIVED' });
    expect(read.progress).toMatchObject({ done: 1, total: 1, pending: 0 });
  });

  it('is OPEN again when every live item is deleted (no items)', async () => {
    const { task, items } = await createTask(server, ['A']);
    await setStates([items[0].id], ['DROPPED']);
    expect((await readTask(server, task.id)).state).toBe('CANCELLED');
    await server.ok(`mutation($id: ID!) { deleteItem(id: $id) { id } }`, { id: items[0].id });
    expect(await readTask(server, task.id)).toMatchObject({ state: 'OPEN', status: 'ACTIVE', progress: { total: 0 } });
  });
});
