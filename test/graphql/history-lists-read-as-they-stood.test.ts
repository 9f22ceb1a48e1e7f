/**
 * History rows hold a delta from the row before, and a whole list only now
 * and then, yet every reader gets the list after each event exactly as it
 * stood: oldest or newest first, a page at a time from any cursor (so from
 * the middle of a chain of deltas), after every kind of change, for claims
 * taken while the list changes, for a plan's whole-list writes, and for
 * history written before rows were stored this way.
 */
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataSourceOptions } from '../../src/db/data-source.js';
import { HistoryDeltas1765400000000 } from '../../src/db/migrations/1765400000000-history-deltas.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { startTestServer, testDatabase, type TestServer } from '../harness.js';
import {
  ADD_COMMENT, ADD_ITEMS, CLAIM_ITEM, CLAIM_NEXT, DELETE_ITEM, EDIT_TASK, MOVE_ITEM, READ_HISTORY_PAGE, RELEASE_CLAIM, UPDATE_ITEM,
} from '../fixtures/documents.js';
import { listed, liveList, readHistory, type Listed } from '../fixtures/history.js';
import { planHistory, startSession, writeTodos } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

describe('the list after each event', () => {
  it('gives the list after every kind of change, oldest or newest first, from any cursor', { timeout: 120_000 }, async () => {
    const { task } = await createTask(server, Array.from({ length: 60 }, (_, index) => `Audit ledger ${index + 1}`));
    const session = await startSession(server);
    const lists = [await liveList(server, task.id)];
    for (let step = 0; step < 72; step += 1) {
      const live = await liveList(server, task.id);
      const pick = live[(step * 13) % live.length]!;
      const other = live[(step * 29 + 7) % live.length]!;
      switch (step % 9) {
        case 0: await server.ok(UPDATE_ITEM, { input: { id: pick.id, text: `Audit ledger (step ${step})` } }); break;
        case 1: await server.ok(MOVE_ITEM, { input: { id: pick.id, after: pick.id === other.id ? null : other.id } }); break;
        case 2: await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: [`Added at ${step}`, `Also added at ${step}`], after: other.id } }); break;
        case 3: await server.ok(DELETE_ITEM, { id: pick.id }); break;
        case 4: await server.ok(ADD_COMMENT, { input: { taskId: task.id, item: pick.id, body: `Checked at ${step}.` } }); break;
        case 5: await server.ok(EDIT_TASK, { input: { id: task.id, goal: `Goal at ${step}.` } }); break;
        case 6: {
          const open = live.find((item) => item.state !== 'DONE')!;
          await server.ok(CLAIM_ITEM, { input: { id: open.id } }, { session });
          lists.push(await liveList(server, task.id));
          await server.ok(RELEASE_CLAIM, { id: open.id }, { session });
          break;
        }
        default: await server.ok(UPDATE_ITEM, { input: { id: pick.id, state: pick.state === 'DONE' ? 'IN_PROGRESS' : 'DONE' } });
      }
      lists.push(await liveList(server, task.id));
    }
    expect((await readHistory(server, task.id, 200)).map((event) => event.items)).toEqual(lists);
    // Small pages start mid-chain, in both directions.
    expect((await readHistory(server, task.id, 7)).map((event) => event.items)).toEqual(lists);
    expect((await readHistory(server, task.id, 7, true)).map((event) => event.items)).toEqual([...lists].reverse());
    expect((await readHistory(server, task.id, 1, true, 30)).map((event) => event.items)).toEqual([...lists].reverse().slice(0, 30));
  });

  it('records, for each claim taken while the list changes, the list as it stands', { timeout: 120_000 }, async () => {
    const domain = 'history/claims-race';
    const { task } = await createTask(server, Array.from({ length: 40 }, (_, index) => `Ready item ${index + 1}`), { domain });
    const sessions = await Promise.all([0, 1, 2, 3].map(() => startSession(server)));
    // Agents take and give back ready items (claimNext does not lock the task) while another caller keeps changing the list.
    const agents = sessions.map(async (session) => {
      for (let turn = 0; turn < 12; turn += 1) {
        const claimed = (await server.ok(CLAIM_NEXT, { domain }, { session })).claimNext;
        if (claimed) await server.ok(RELEASE_CLAIM, { id: claimed.id }, { session });
      }
    });
    const editor = (async () => {
      for (let change = 0; change < 30; change += 1) {
        if (change % 2) await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: [`Added while claiming ${change}`] } });
        else await server.ok(UPDATE_ITEM, { input: { id: (await liveList(server, task.id))[change]!.id, text: `Renamed while claiming ${change}` } });
      }
    })();
    await Promise.all([...agents, editor]);
    const history = await readHistory(server, task.id, 200);
    expect(history.filter((event) => event.action === 'ITEM_CLAIMED').length).toBeGreaterThan(0);
    // A claim changes no item: its row's list is the one before it, and the last row's is the list as it stands.
    history.forEach((event, index) => {
      if (event.action === 'ITEM_CLAIMED' || event.action === 'CLAIM_RELEASED') expect(event.items, `event ${event.id}`).toEqual(history[index - 1]!.items);
    });
    expect(history.at(-1)!.items).toEqual(await liveList(server, task.id));
  });

  it('gives a plan\'s list after each whole-list write', { timeout: 60_000 }, async () => {
    const session = await startSession(server);
    const statuses = ['PENDING', 'IN_PROGRESS', 'DONE'];
    const lists: Listed[][] = [];
    let planId = '';
    for (let write = 0; write < 25; write += 1) {
      const count = 20 + (write % 7);
      const payload = await writeTodos(server, session, Array.from({ length: count }, (_, index): [string, string] => [
        `Step ${index + 1}${index % 5 === write % 5 ? ` (rewritten at ${write})` : ''}`, statuses[(index + write) % 3]!,
      ]));
      planId = payload.plan!.id;
      lists.push(listed(payload.plan!.items.nodes.filter((step) => !step.deleted)));
    }
    const { rows } = await planHistory(server, planId);
    expect(rows.map((row) => row.items)).toEqual(lists);
  });
});

describe('history across the upgrade to deltas', () => {
  it('written before reads as it did, and later changes continue it', { timeout: 60_000 }, async () => {
    const { file, databaseUrl } = await testDatabase();
    // The schema as it stood before this change, with a task and whole-list history rows written the old way.
    const old = new DataSource({ ...dataSourceOptions(databaseUrl, 'writer'), migrations: MIGRATIONS.filter((migration) => migration !== HistoryDeltas1765400000000) } as never);
    await old.initialize();
    await old.runMigrations();
    const now = new Date().toISOString();
    const [{ id: taskId }] = await old.query(
      `INSERT INTO "memories" ("kind", "title", "domain", "createdAt", "updatedAt") VALUES ('TASK', 'Old task', 'old/db', '${now}', '${now}') RETURNING "id"`,
    );
    const list: Listed[] = [];
    for (const [position, text] of ['First', 'Second', 'Third'].entries()) {
      const [{ id }] = await old.query(
        `INSERT INTO "items" ("taskId", "text", "state", "position", "createdAt", "updatedAt") VALUES (${taskId}, '${text}', 'PENDING', ${position}, '${now}', '${now}') RETURNING "id"`,
      );
      list.push({ id: String(id), text, state: 'PENDING' });
    }
    const lists = [list.slice(0, 2), list, list.map((item, index) => (index === 0 ? { ...item, state: 'DONE' } : item))];
    for (const [index, after] of lists.entries()) {
      await old.query(
        `INSERT INTO "task_events" ("taskId", "at", "action", "sessionId", "items", "changes") VALUES (${taskId}, '${now}', '${['TASK_CREATED', 'ITEMS_ADDED', 'ITEM_STATE'][index]}', NULL, '${JSON.stringify(after)}', '[]')`,
      );
    }
    await old.query(`UPDATE "items" SET "state" = 'DONE' WHERE "id" = ${list[0]!.id}`);
    await old.destroy();

    const upgraded = await startTestServer({ file });
    try {
      const read = async () => (await upgraded.ok(READ_HISTORY_PAGE, { id: String(taskId), first: 50 })).task.history.nodes.map((event: { items: Listed[] }) => event.items);
      expect(await read()).toEqual(lists);
      await upgraded.ok(UPDATE_ITEM, { input: { id: list[2]!.id, state: 'IN_PROGRESS' } });
      expect(await read()).toEqual([...lists, [{ ...list[0]!, state: 'DONE' }, list[1], { ...list[2]!, state: 'IN_PROGRESS' }]]);
    } finally {
      await upgraded.close();
    }
  });

  it('has its whole list in every row again when the upgrade is undone (migration down)', { timeout: 60_000 }, async () => {
    const { file, databaseUrl } = await testDatabase();
    const current = await startTestServer({ file });
    let taskId: string;
    let lists: Listed[][];
    try {
      const { task, items } = await createTask(current, Array.from({ length: 40 }, (_, index) => `Reconcile ledger line ${index + 1}`));
      for (let update = 0; update < 12; update += 1) {
        await current.ok(UPDATE_ITEM, { input: { id: items[(update * 7) % 40]!.id, state: update % 2 ? 'DONE' : 'IN_PROGRESS' } });
      }
      taskId = task.id;
      lists = (await readHistory(current, task.id, 50)).map((event) => event.items);
    } finally {
      await current.close();
    }
    const db = new DataSource({ ...dataSourceOptions(databaseUrl, 'writer'), migrations: MIGRATIONS } as never);
    await db.initialize();
    try {
      const [{ deltas }] = await db.query(`SELECT COUNT(*) AS "deltas" FROM "task_events" WHERE "taskId" = ${taskId} AND "chainLength" > 0`);
      expect(Number(deltas)).toBeGreaterThan(0);
      const runner = db.createQueryRunner();
      await new HistoryDeltas1765400000000().down(runner);
      await runner.release();
      const rows: { items: string }[] = await db.query(`SELECT "items" FROM "task_events" WHERE "taskId" = ${taskId} ORDER BY "id"`);
      expect(rows.map((row) => JSON.parse(row.items))).toEqual(lists);
    } finally {
      await db.destroy();
    }
  });
});
