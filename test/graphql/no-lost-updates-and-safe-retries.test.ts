/** Task versions, expectedVersion (no lost updates) and idempotency keys, over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS, CREATE_TASK, DELETE_ITEM, EDIT_TASK, MOVE_ITEM, READ_HISTORY, UPDATE_ITEM } from '../fixtures/documents.js';
import { refusedAndNothingRecorded, databaseState } from '../fixtures/nothing-recorded.js';
import { createTask, labels, readTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

describe('version', () => {
  it('starts at 1 and goes up by one on every recorded change, one history row each', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C']);
    expect(task.version).toBe(1);
    const steps: [string, Record<string, unknown>][] = [
      [UPDATE_ITEM, { input: { id: items[0].id, state: 'IN_PROGRESS' } }],
      [UPDATE_ITEM, { input: { id: items[0].id, text: 'A renamed' } }],
      [UPDATE_ITEM, { input: { id: items[0].id, comment: 'A note on A.' } }],
      [EDIT_TASK, { input: { id: task.id, goal: 'Another goal.' } }],
      [ADD_ITEMS, { input: { taskId: task.id, items: ['D'] } }],
      [MOVE_ITEM, { input: { id: items[2].id } }],
      [DELETE_ITEM, { id: items[1].id }],
    ];
    for (const [index, [query, variables]] of steps.entries()) {
      await server.ok(query, variables);
      expect((await readTask(server, task.id)).version, `after step ${index + 1}`).toBe(index + 2);
    }
    const history = (await server.ok(READ_HISTORY, { id: task.id })).task.history;
    expect(history.totalCount).toBe(steps.length + 1);
  });
});

describe('expectedVersion', () => {
  it('accepts the current version on editTask, updateItem and addItems', async () => {
    const { task, items } = await createTask(server, ['A']);
    await server.ok(EDIT_TASK, { input: { id: task.id, title: 'Edited', expectedVersion: 1 } });
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE', expectedVersion: 2 } });
    const added = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['B'], expectedVersion: 3 } })).addItems;
    expect(added.task.version).toBe(4);
  });

  it('refuses a stale version with VERSION_CONFLICT naming the current one, and records nothing', async () => {
    const { task, items } = await createTask(server, ['A', 'B']);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE' } });
    // Another agent read version 1 and now writes.
    const cases: [string, Record<string, unknown>][] = [
      [EDIT_TASK, { input: { id: task.id, title: 'Stale', expectedVersion: 1 } }],
      [UPDATE_ITEM, { input: { id: items[1].id, state: 'DONE', expectedVersion: 1 } }],
      [UPDATE_ITEM, { input: { id: items[1].id, text: 'Stale rename', expectedVersion: 1 } }],
      [ADD_ITEMS, { input: { taskId: task.id, items: ['Stale item'], expectedVersion: 1 } }],
      [ADD_ITEMS, { input: { taskId: task.id, items: ['Future item'], expectedVersion: 3 } }],
    ];
    for (const [query, variables] of cases) {
      const message = await refusedAndNothingRecorded(server, 'VERSION_CONFLICT', query, variables);
      expect(message).toMatch(/version 2/);
      expect(message).toMatch(/expectedVersion: 2/);
    }
    const read = await readTask(server, task.id);
    expect(read).toMatchObject({ version: 2, title: task.title });
    expect(labels(read)).toEqual(['A', 'B']);
  });

  it('is checked even when the change would be a no-op', async () => {
    const { task, items } = await createTask(server, ['A']);
    await server.ok(EDIT_TASK, { input: { id: task.id, goal: 'Moved on.' } });
    await refusedAndNothingRecorded(server, 'VERSION_CONFLICT', UPDATE_ITEM, { input: { id: items[0].id, state: 'PENDING', expectedVersion: 1 } });
  });
});

describe('idempotencyKey', () => {
  it('createTask: a retry with the same key and input returns the same task and item ids and records nothing', async () => {
    const input = { title: 'Idempotent', goal: 'Once.', items: ['A', 'B'], domain: 'ops/infra', idempotencyKey: 'create-1' };
    const first = (await server.ok(CREATE_TASK, { input })).createTask;
    const before = await databaseState(server);
    const retry = (await server.ok(CREATE_TASK, { input })).createTask;
    expect(retry.task.id).toBe(first.task.id);
    expect(retry.items.map((i: { id: string }) => i.id)).toEqual(first.items.map((i: { id: string }) => i.id));
    expect(retry.task.version).toBe(1);
    expect(await databaseState(server)).toEqual(before);
  });

  it('createTask: the retry answers with the task as it is now, still without recording', async () => {
    const input = { title: 'Changed later', goal: 'Once.', items: ['A'], domain: 'ops/infra', idempotencyKey: 'create-2' };
    const first = (await server.ok(CREATE_TASK, { input })).createTask;
    await server.ok(UPDATE_ITEM, { input: { id: first.items[0].id, state: 'DONE' } });
    const before = await databaseState(server);
    const retry = (await server.ok(CREATE_TASK, { input })).createTask;
    expect(retry.task).toMatchObject({ id: first.task.id, version: 2, state: 'COMPLETED' });
    expect(await databaseState(server)).toEqual(before);
  });

  it('createTask: the same key with other input is refused with BAD_USER_INPUT, recording nothing', async () => {
    const input = { title: 'Keyed', goal: 'Once.', items: ['A'], domain: 'ops/infra', idempotencyKey: 'create-3' };
    await server.ok(CREATE_TASK, { input });
    const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CREATE_TASK, { input: { ...input, items: ['A', 'B'] } });
    expect(message).toContain('"create-3"');
    expect(message).toMatch(/new key/);
  });

  it('createTask: a refused call does not use up its key', async () => {
    const input = { title: 'Retry after fix', goal: 'Once.', items: ['A'], domain: 'Ops', idempotencyKey: 'create-4' };
    await refusedAndNothingRecorded(server, 'INVALID_DOMAIN', CREATE_TASK, { input });
    const fixed = (await server.ok(CREATE_TASK, { input: { ...input, domain: 'ops' } })).createTask;
    expect(fixed.task.domain).toBe('ops');
  });

  it('addItems: a retry returns the same item ids and adds nothing; other input with the key is refused', async () => {
    const { task } = await createTask(server, ['A']);
    const input = { taskId: task.id, items: ['B', 'C'], idempotencyKey: 'add-1' };
    const first = (await server.ok(ADD_ITEMS, { input })).addItems;
    const before = await databaseState(server);
    const retry = (await server.ok(ADD_ITEMS, { input })).addItems;
    expect(retry.items.map((i: { id: string }) => i.id)).toEqual(first.items.map((i: { id: string }) => i.id));
    expect(retry.task.version).toBe(2);
    expect(labels(retry.task)).toEqual(['A', 'B', 'C']);
    expect(await databaseState(server)).toEqual(before);
    await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', ADD_ITEMS, { input: { ...input, items: ['D'] } });
  });

  it('addItems: a retry after the task moved on still replays rather than conflicting or duplicating', async () => {
    const { task } = await createTask(server, ['A']);
    const input = { taskId: task.id, items: ['B'], expectedVersion: 1, idempotencyKey: 'add-2' };
    const first = (await server.ok(ADD_ITEMS, { input })).addItems;
    await server.ok(EDIT_TASK, { input: { id: task.id, title: 'Moved on' } });
    const retry = (await server.ok(ADD_ITEMS, { input })).addItems;
    expect(retry.items[0].id).toBe(first.items[0].id);
    expect(labels(await readTask(server, task.id))).toEqual(['A', 'B']);
  });

  it('keys of createTask and addItems are separate', async () => {
    const created = (await server.ok(CREATE_TASK, { input: { title: 'Shared key', goal: 'g', items: ['A'], domain: 'ops', idempotencyKey: 'shared' } })).createTask;
    const added = (await server.ok(ADD_ITEMS, { input: { taskId: created.task.id, items: ['B'], idempotencyKey: 'shared' } })).addItems;
    expect(labels(added.task)).toEqual(['A', 'B']);
  });
});
