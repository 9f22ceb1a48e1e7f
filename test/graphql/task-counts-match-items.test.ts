/**
 * Each task row keeps its counts of live items by state (and the state the
 * domain derives from them) so lists never read items. They are derived data:
 * after every kind of change, concurrent ones included, they equal a recount
 * of the items, and what the API answers for state and progress follows.
 * A database written before the counts existed gets them on open.
 */
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import { dataSourceOptions } from '../../src/db/data-source.js';
import { Initial1764460000000 } from '../../src/db/migrations/1764460000000-initial.js';
import { progressOf, taskStateOf, type ItemState } from '../../src/domain/states.js';
import { startTestServer, testDatabase, type TestServer } from '../harness.js';
import {
  ADD_ITEMS, DELETE_ITEM, MOVE_ITEM, READ_TASK, UPDATE_ITEM, ADD_STEPS, CLEAR_PLAN, SET_PLAN, UPDATE_STEP,
} from '../fixtures/documents.js';
import { startSession, writeTodos } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const COUNT_COLUMNS = ['pendingItems', 'inProgressItems', 'doneItems', 'droppedItems', 'blockedItems', 'failedItems'] as const;

/** Every task's kept counts and state next to a recount of its items, straight from the database. */
async function keptAndRecounted(db: { query(sql: string): Promise<any[]> }) {
  const tasks = await db.query(`SELECT "id", ${COUNT_COLUMNS.map((c) => `"${c}"`).join(', ')}, "taskState" FROM "memories" WHERE "kind" = 'TASK' ORDER BY "id"`);
  const items = await db.query('SELECT "taskId", "state", "deleted" FROM "items"');
  return tasks.map((task) => {
    const own = items.filter((item) => Number(item.taskId) === Number(task.id)).map((item) => ({ state: item.state as ItemState, deleted: Boolean(item.deleted) }));
    const recount = progressOf(own);
    return {
      id: String(task.id),
      kept: { counts: COUNT_COLUMNS.map((c) => Number(task[c])), state: task.taskState },
      recounted: { counts: [recount.pending, recount.inProgress, recount.done, recount.dropped, recount.blocked, recount.failed], state: taskStateOf(recount) },
      progress: recount,
    };
  });
}

/** The counts of every task equal a recount, and the API's state and progress of `taskId` follow them. */
async function expectCountsMatch(taskId?: string) {
  const rows = await keptAndRecounted(server.app.services.db.reader);
  for (const row of rows) expect(row.kept, `task ${row.id}`).toEqual(row.recounted);
  if (!taskId) return;
  const { task } = await server.ok(READ_TASK, { id: taskId });
  const row = rows.find((r) => r.id === taskId)!;
  expect(task.state).toBe(row.recounted.state);
  expect(task.status).toBe(row.recounted.state === 'OPEN' ? 'ACTIVE' : 'ARCHIVED');
  expect(task.progress).toEqual(row.progress);
}

describe('a task\'s kept counts', () => {
  it('equal a recount after every kind of change to a task\'s items', async () => {
    const { task, items } = await createTask(server, ['One', 'Two', 'Three'], { domain: 'counts/kb' });
    await expectCountsMatch(task.id);
    for (const [i, state] of ['DONE', 'IN_PROGRESS', 'BLOCKED', 'FAILED', 'DROPPED', 'DONE', 'PENDING'].entries()) {
      await server.ok(UPDATE_ITEM, { input: { id: items[i % 3].id, state, comment: 'Why.' } });
      await expectCountsMatch(task.id);
    }
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, text: 'One, renamed' } });
    await expectCountsMatch(task.id);
    const added = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['Four', 'Five'], after: items[0].id } })).addItems.items;
    await expectCountsMatch(task.id);
    await server.ok(MOVE_ITEM, { input: { id: added[1].id, after: null } });
    await expectCountsMatch(task.id);
    await server.ok(DELETE_ITEM, { id: items[1].id });
    await expectCountsMatch(task.id);
    // Every live item settled: the task closes; adding one reopens it.
    for (const item of [items[0], items[2], ...added]) await server.ok(UPDATE_ITEM, { input: { id: item.id, state: 'DONE' } });
    await expectCountsMatch(task.id);
    expect((await server.ok(READ_TASK, { id: task.id })).task.state).toBe('COMPLETED');
    await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['Six'] } });
    await expectCountsMatch(task.id);
    expect((await server.ok(READ_TASK, { id: task.id })).task.state).toBe('OPEN');
  });

  it('equal a recount after every kind of change to a session\'s plan', async () => {
    const session = await startSession(server);
    const first = await writeTodos(server, session, [['Read', 'IN_PROGRESS'], ['Fix', 'PENDING'], ['Test', 'PENDING']]);
    const planId = first.plan!.id;
    await expectCountsMatch(planId);
    await writeTodos(server, session, [['Read', 'DONE'], ['Test', 'IN_PROGRESS'], ['Ship', 'PENDING']]);
    await expectCountsMatch(planId);
    await server.ok(ADD_STEPS, { steps: ['Announce'], after: null }, { session });
    await expectCountsMatch(planId);
    await server.ok(UPDATE_STEP, { input: { step: 2, state: 'DONE', note: 'Green.' } }, { session });
    await expectCountsMatch(planId);
    await server.ok(SET_PLAN, { steps: ['Start over'] }, { session });
    await expectCountsMatch(planId);
    await server.ok(CLEAR_PLAN, {}, { session });
    await expectCountsMatch(planId);
  });

  it('equal a recount after concurrent changes to one task', async () => {
    const labels = Array.from({ length: 12 }, (_, i) => `Parallel ${i}`);
    const { task, items } = await createTask(server, labels, { domain: 'counts/race' });
    const states = ['DONE', 'IN_PROGRESS', 'DROPPED', 'BLOCKED'];
    await Promise.all([
      ...items.map((item, i) => server.gql(UPDATE_ITEM, { input: { id: item.id, state: states[i % states.length] } })),
      ...[0, 1, 2].map((i) => server.gql(ADD_ITEMS, { input: { taskId: task.id, items: [`Added ${i}`] } })),
      server.gql(DELETE_ITEM, { id: items[5].id }),
    ]);
    await expectCountsMatch(task.id);
  });
});

describe('a database written before the counts existed', () => {
  it('gets every task\'s counts and state when it is opened', async () => {
    const { databaseUrl } = await testDatabase();
    // The first schema only, with tasks written the old way (no counts on the row).
    const old = new DataSource({ ...dataSourceOptions(databaseUrl, 'writer'), migrations: [Initial1764460000000] } as never);
    await old.initialize();
    await old.runMigrations();
    const now = new Date().toISOString();
    const insertTask = async (id: number, title: string) =>
      old.query(`INSERT INTO "memories" ("id", "kind", "title", "domain", "createdAt", "updatedAt") VALUES (${id}, 'TASK', '${title}', 'old/db', '${now}', '${now}')`);
    const insertItem = async (id: number, taskId: number, state: string, deleted: boolean) =>
      old.query(`INSERT INTO "items" ("id", "taskId", "text", "state", "position", "deleted", "createdAt", "updatedAt") VALUES (${id}, ${taskId}, 'Item ${id}', '${state}', ${id}, ${deleted ? 'TRUE' : 'FALSE'}, '${now}', '${now}')`);
    await insertTask(1, 'Open');
    await insertItem(1, 1, 'DONE', false);
    await insertItem(2, 1, 'PENDING', false);
    await insertTask(2, 'Done');
    await insertItem(3, 2, 'DONE', false);
    await insertItem(4, 2, 'PENDING', true);
    await insertTask(3, 'Dropped');
    await insertItem(5, 3, 'DROPPED', false);
    await insertTask(4, 'Empty');
    await old.destroy();

    const db = await Database.open(databaseUrl);
    try {
      const rows = await keptAndRecounted(db.reader);
      expect(rows.map((row) => row.kept.state)).toEqual(['OPEN', 'COMPLETED', 'CANCELLED', 'OPEN']);
      for (const row of rows) expect(row.kept, `task ${row.id}`).toEqual(row.recounted);
    } finally {
      await db.close();
    }
  });
});
