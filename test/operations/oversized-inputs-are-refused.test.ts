/**
 * Inputs past what the API takes are refused with a code that says what to
 * send instead, on every database: long keys, domains, headers and ids, huge
 * lists, and retries of things since deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_TASK_NOTE, DELETE_TASK_NOTE, CREATE_TASK, DELETE_ITEM, MOVE_ITEM, READ_HISTORY, UPDATE_ITEM } from '../fixtures/documents.js';
import { brief } from '../fixtures/knowledge.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const historyCount = async (id: string) => (await server.ok(READ_HISTORY, { id, first: 200 })).task.history.totalCount as number;

describe('ids', () => {
  it('past the database integer range name nothing, rather than failing', async () => {
    expect((await server.ok('{ task(id: "99999999999") { id } item(id: "99999999999") { id } memory(id: "2147483648") { id } }'))).toEqual({
      task: null, item: null, memory: null,
    });
    expect((await server.refused(UPDATE_ITEM, { input: { id: '99999999999', state: 'DONE' } })).code).toBe('NOT_FOUND');
  });

  it('with leading zeros name the same item everywhere', async () => {
    const { items } = await createTask(server, ['Zero-padded']);
    const padded = `00${items[0].id}`;
    expect((await server.ok(UPDATE_ITEM, { input: { id: padded, state: 'DONE' } })).updateItem.state).toBe('DONE');
  });
});

describe('sizes', () => {
  it('refuses a domain over 200 characters with INVALID_DOMAIN', async () => {
    const domain = Array.from({ length: 8 }, () => 'x'.repeat(30)).join('/');
    const message = await refusedAndNothingRecorded(server, 'INVALID_DOMAIN', CREATE_TASK, { input: { title: 'Long', goal: 'g', domain } });
    expect(message).toContain('200');
  });

  it('refuses an idempotency key over 200 characters', async () => {
    await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CREATE_TASK, {
      input: { title: 'Keyed', goal: 'g', domain: 'limits/keys', idempotencyKey: 'k'.repeat(201) },
    });
  });

  it('refuses more than 100 memories linked in one call with TOO_LARGE', async () => {
    const { items } = await createTask(server, ['Link many']);
    await refusedAndNothingRecorded(server, 'TOO_LARGE', UPDATE_ITEM, { input: { id: items[0].id, related: Array.from({ length: 101 }, () => '1') } });
  });

  it('treats an x-session-id too long to be a session id as naming none', async () => {
    const refused = await server.refused('mutation { writeTodos(todos: []) { message } }', {}, { session: 's'.repeat(65) });
    expect(refused).toEqual({ code: 'NO_SESSION', message: 'todo_write requires an owning agent session' });
  });
});

describe('idempotency keys', () => {
  it('belong to the caller: two sessions using one key each get their own result', async () => {
    const input = { title: 'Same key', goal: 'g', domain: 'limits/scoped', items: ['One'], idempotencyKey: 'shared-key' };
    const [a, b] = [(await server.ok('mutation { startSession { id } }')).startSession.id, (await server.ok('mutation { startSession { id } }')).startSession.id];
    const first = await server.ok(CREATE_TASK, { input }, { session: a });
    const second = await server.ok(CREATE_TASK, { input }, { session: b });
    const again = await server.ok(CREATE_TASK, { input }, { session: a });
    expect(second.createTask.task.id).not.toBe(first.createTask.task.id);
    expect(again.createTask.task.id).toBe(first.createTask.task.id);
  });

  it('replaying the creation of a task note deleted since is NOT_FOUND, saying to use a new key', async () => {
    const { task, items } = await createTask(server, ['Briefed']);
    const input = { taskId: task.id, title: 'Brief', items: [items[0].id], brief: brief(), idempotencyKey: 'note-key' };
    const note = (await server.ok(ADD_TASK_NOTE, { input })).addTaskNote;
    await server.ok(DELETE_TASK_NOTE, { id: note.id });
    const message = await refusedAndNothingRecorded(server, 'NOT_FOUND', ADD_TASK_NOTE, { input });
    expect(message).toContain('new key');
  });
});

describe('briefs', () => {
  it('refuse an item waiting for itself, and a new wait on a deleted item', async () => {
    const { task, items } = await createTask(server, ['Wait', 'Gone']);
    await server.ok(DELETE_ITEM, { id: items[1].id });
    const on = (dependsOn: { item: string }[]) => ({ input: { taskId: task.id, title: 'B', items: [items[0].id], brief: brief({ dependsOn }) } });
    await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', ADD_TASK_NOTE, on([{ item: items[0].id }]));
    await refusedAndNothingRecorded(server, 'DELETED_ITEM', ADD_TASK_NOTE, on([{ item: items[1].id }]));
  });

  it('render a dependency reason that cites items', async () => {
    const { task, items } = await createTask(server, ['First', 'Second']);
    const input = { taskId: task.id, title: 'B', items: [items[1].id], brief: brief({ dependsOn: [{ item: items[0].id, reason: `after [[#${items[0].id}]] lands` }] }) };
    await server.ok(ADD_TASK_NOTE, { input });
    const read = await server.ok('query($id: ID!) { item(id: $id) { dependsOn { reason reasonText } } }', { id: items[1].id });
    expect(read.item.dependsOn).toEqual([{ reason: `after [[#${items[0].id}]] lands`, reasonText: 'after [#1 First] lands' }]);
  });
});

describe('changes that change nothing', () => {
  it('moving an item to where it already stands records nothing', async () => {
    const { task, items } = await createTask(server, ['A', 'B']);
    const before = await historyCount(task.id);
    await server.ok(MOVE_ITEM, { input: { id: items[0].id } });
    await server.ok(MOVE_ITEM, { input: { id: items[1].id, after: items[0].id } });
    expect(await historyCount(task.id)).toBe(before);
  });

  it('a note id given to a task mutation is refused naming editNote', async () => {
    const note = await server.ok('mutation { createNote(input: { title: "N", body: "b", domain: "limits/notes" }) { id } }');
    const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', 'mutation($input: EditTaskInput!) { editTask(input: $input) { id } }', {
      input: { id: note.createNote.id, title: 'T' },
    });
    expect(message).toContain('editNote');
  });
});
