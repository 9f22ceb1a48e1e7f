/** dropRestAndArchive through GraphQL over HTTP: a task's open work dropped with one reason in one step, archived, recorded once; refusals record nothing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CLAIM_ITEM, DROP_REST_AND_ARCHIVE, ITEM_COORDINATION, READ_HISTORY, START_SESSION, UPDATE_ITEM, WRITE_TODOS } from '../fixtures/documents.js';
import { readToEnd } from '../fixtures/change-feed.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

describe('dropRestAndArchive', () => {
  it('drops every open item with the reason, ends their claims and archives the task, as one history row and one change', async () => {
    const { task, items } = await createTask(server, ['Done already', 'Never started', 'Under way', 'Stuck', 'Dropped before'], { domain: 'acme/wrap-up' });
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE' } });
    await server.ok(UPDATE_ITEM, { input: { id: items[3].id, state: 'BLOCKED', comment: 'Waiting on legal.' } });
    await server.ok(UPDATE_ITEM, { input: { id: items[4].id, state: 'DROPPED', comment: 'Out of scope.' } });
    const agent = (await server.ok(START_SESSION, {})).startSession.id;
    await server.ok(CLAIM_ITEM, { input: { id: items[2].id } }, { session: agent });
    await server.ok(UPDATE_ITEM, { input: { id: items[2].id, state: 'IN_PROGRESS' } }, { session: agent });
    const before = (await server.ok(READ_HISTORY, { id: task.id, first: 100 })).task.history.totalCount;
    const { cursor } = await readToEnd(server.ok.bind(server), null, 'acme/wrap-up');

    const archived = (await server.ok(DROP_REST_AND_ARCHIVE, { input: { taskId: task.id, reason: 'The customer cancelled.' } })).dropRestAndArchive;
    expect(archived.state).toBe('COMPLETED');
    expect(archived.items.nodes.map((item: any) => [item.text, item.state, item.note])).toEqual([
      ['Done already', 'DONE', null],
      ['Never started', 'DROPPED', 'The customer cancelled.'],
      ['Under way', 'DROPPED', 'The customer cancelled.'],
      ['Stuck', 'DROPPED', 'The customer cancelled.'],
      ['Dropped before', 'DROPPED', 'Out of scope.'],
    ]);
    // The agent's claim ended with the drop.
    expect((await server.ok(ITEM_COORDINATION, { id: items[2].id })).item.claim).toBeNull();

    const history = (await server.ok(READ_HISTORY, { id: task.id, first: 100 })).task.history;
    expect(history.totalCount).toBe(before + 1);
    expect(history.nodes.at(-1)).toMatchObject({ action: 'ITEM_STATE', changes: [
      { itemId: items[1].id, kind: 'STATE', from: 'PENDING', to: 'DROPPED' },
      { itemId: items[2].id, kind: 'STATE', from: 'IN_PROGRESS', to: 'DROPPED' },
      { itemId: items[3].id, kind: 'STATE', from: 'BLOCKED', to: 'DROPPED' },
    ] });
    const logged = (await readToEnd(server.ok.bind(server), cursor, 'acme/wrap-up')).changes;
    expect(logged.map((change) => [change.action, change.memoryId])).toEqual([['ITEM_STATE', task.id]]);

    // Again, nothing is left to drop: the same answer, nothing recorded.
    const again = (await server.ok(DROP_REST_AND_ARCHIVE, { input: { taskId: task.id, reason: 'Twice.' } })).dropRestAndArchive;
    expect(again).toMatchObject({ state: 'COMPLETED', version: archived.version });
    expect((await server.ok(READ_HISTORY, { id: task.id, first: 100 })).task.history.totalCount).toBe(before + 1);
  });

  it('is refused, recording nothing, without a reason, at a stale version, on a plan, and past another session\'s claim', async () => {
    const { task, items } = await createTask(server, ['One', 'Two']);
    await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', DROP_REST_AND_ARCHIVE, { input: { taskId: task.id, reason: '  ' } });
    await refusedAndNothingRecorded(server, 'VERSION_CONFLICT', DROP_REST_AND_ARCHIVE, { input: { taskId: task.id, reason: 'Stop.', expectedVersion: task.version - 1 } });
    await refusedAndNothingRecorded(server, 'NOT_FOUND', DROP_REST_AND_ARCHIVE, { input: { taskId: '999999', reason: 'Stop.' } });

    const holder = (await server.ok(START_SESSION, {})).startSession.id;
    const other = (await server.ok(START_SESSION, {})).startSession.id;
    await server.ok(CLAIM_ITEM, { input: { id: items[1].id } }, { session: holder });
    await refusedAndNothingRecorded(server, 'CLAIMED', DROP_REST_AND_ARCHIVE, { input: { taskId: task.id, reason: 'Stop.' } }, { session: other });

    const session = (await server.ok(START_SESSION, { input: { preset: 'PLAN_AND_FINISH' } })).startSession.id;
    const plan = (await server.ok(WRITE_TODOS, { todos: [{ content: 'Read', status: 'PENDING' }, { content: 'Write', status: 'PENDING' }] }, { session })).writeTodos.plan;
    const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', DROP_REST_AND_ARCHIVE, { input: { taskId: plan.id, reason: 'Stop.' } });
    expect(message).toContain("is a session's plan");
  });
});
