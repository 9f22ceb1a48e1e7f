/**
 * A history row records what changed, not the whole list: one updateItem adds
 * about as many bytes to history on a task of 500 items as on one of 50, so
 * one write token cannot fill the disk by changing a long list over and over.
 * Every reader still gets the list after each event exactly as it stood:
 * oldest or newest first, a page at a time from any cursor, after every kind
 * of change (a plan's whole-list writes too), and for history written before
 * rows were stored this way.
 */
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataSourceOptions } from '../src/db/data-source.js';
import { MIGRATIONS } from '../src/db/migrations/index.js';
import { startTestServer, testDatabase, type TestServer } from './harness.js';
import {
  ADD_COMMENT, ADD_ITEMS, CLAIM_ITEM, DELETE_ITEM, EDIT_TASK, MOVE_ITEM, READ_HISTORY_PAGE, READ_TASK, RELEASE_CLAIM, UPDATE_ITEM,
} from './fixtures/documents.js';
import { planHistory, startSession, writeTodos } from './fixtures/sessions.js';
import { createTask } from './fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

interface Listed { id: string; text: string; state: string }

const STATES = ['PENDING', 'IN_PROGRESS', 'DONE', 'BLOCKED'] as const;
/** Enough updates that the bytes counted include several whole lists (checkpoints) on either task, not deltas alone. */
const UPDATES = 200;

const listed = (items: readonly Listed[]): Listed[] => items.map(({ id, text, state }) => ({ id, text, state }));

/** A task of `size` items (made with the first 100, the rest added 100 at a time) and the list after each of its events. */
async function taskOf(size: number) {
  const labels = Array.from({ length: size }, (_, index) => `Reconcile invoice batch ${index + 1}`);
  const { task, items } = await createTask(server, labels.slice(0, 100));
  const list = listed(items);
  const lists = [listed(list)];
  for (let start = 100; start < size; start += 100) {
    list.push(...listed((await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: labels.slice(start, start + 100) } })).addItems.items));
    lists.push(listed(list));
  }
  return { id: task.id as string, list, lists };
}

/** `count` state changes spread over the list, each to the item's next state; the list after each goes to `lists`. */
async function updateStates(task: { list: Listed[]; lists: Listed[][] }, count: number) {
  for (let update = 0; update < count; update += 1) {
    const item = task.list[(update * 37) % task.list.length]!;
    const state = STATES[(STATES.indexOf(item.state as (typeof STATES)[number]) + 1) % STATES.length]!;
    await server.ok(UPDATE_ITEM, { input: { id: item.id, state } });
    item.state = state;
    task.lists.push(listed(task.list));
  }
}

/** The history rows of a task after event `afterId`, as stored: how many, and the characters of their stored text. */
async function storedHistory(taskId: string, afterId = 0): Promise<{ events: number; bytes: number; lastId: number; wholeLists: number }> {
  const [row] = await server.app.services.db.reader.query(
    `SELECT COUNT(*) AS "events", SUM(LENGTH("items") + LENGTH("changes") + LENGTH("at") + LENGTH("action") + COALESCE(LENGTH("sessionId"), 0)) AS "bytes", ` +
      `MAX("id") AS "lastId", SUM(CASE WHEN "chainLength" = 0 THEN 1 ELSE 0 END) AS "wholeLists" FROM "task_events" WHERE "taskId" = ${Number(taskId)} AND "id" > ${afterId}`,
  );
  return { events: Number(row.events), bytes: Number(row.bytes ?? 0), lastId: Number(row.lastId ?? 0), wholeLists: Number(row.wholeLists ?? 0) };
}

/** Every event of a task through GraphQL, `first` at a time, following endCursor. */
async function readHistory(taskId: string, first: number, newestFirst = false): Promise<{ id: string; action: string; items: Listed[] }[]> {
  const events = [];
  let after: string | null = null;
  for (;;) {
    const page: any = (await server.ok(READ_HISTORY_PAGE, { id: taskId, first, after, newestFirst })).task.history;
    events.push(...page.nodes);
    if (!page.pageInfo.hasNextPage) return events;
    after = page.pageInfo.endCursor;
  }
}

/** The task's live items as the API lists them now. */
async function liveList(taskId: string): Promise<Listed[]> {
  const { task } = await server.ok(READ_TASK, { id: taskId });
  return listed(task.items.nodes.filter((item: { deleted: boolean }) => !item.deleted));
}

describe('history grows by what changed', () => {
  it('adds about the same bytes per updateItem on a task of 500 items as on one of 50, and reads back each list exactly', { timeout: 180_000 }, async () => {
    const perEvent: Record<number, number> = {};
    for (const size of [50, 500]) {
      const task = await taskOf(size);
      const { lastId } = await storedHistory(task.id);
      await updateStates(task, UPDATES);
      const added = await storedHistory(task.id, lastId);
      expect(added.events).toBe(UPDATES);
      expect(added.wholeLists, 'checkpoints among the rows counted').toBeGreaterThanOrEqual(2);
      perEvent[size] = added.bytes / added.events;
      const history = await readHistory(task.id, 100);
      expect(history.map((event) => event.items)).toEqual(task.lists);
    }
    console.log(`history bytes per updateItem: 50 items ${perEvent[50]!.toFixed(0)}, 500 items ${perEvent[500]!.toFixed(0)}`);
    expect(perEvent[500]).toBeLessThanOrEqual(1.5 * perEvent[50]!);
    expect(perEvent[500]).toBeLessThan(2048);
  });

  it('gives the list after every kind of change, oldest or newest first, from any cursor', { timeout: 120_000 }, async () => {
    const { task } = await createTask(server, Array.from({ length: 60 }, (_, index) => `Audit ledger ${index + 1}`));
    const session = await startSession(server);
    const lists = [await liveList(task.id)];
    for (let step = 0; step < 150; step += 1) {
      const live = await liveList(task.id);
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
          lists.push(await liveList(task.id));
          await server.ok(RELEASE_CLAIM, { id: open.id }, { session });
          break;
        }
        default: await server.ok(UPDATE_ITEM, { input: { id: pick.id, state: pick.state === 'DONE' ? 'IN_PROGRESS' : 'DONE' } });
      }
      lists.push(await liveList(task.id));
    }
    expect((await readHistory(task.id, 200)).map((event) => event.items)).toEqual(lists);
    // Small pages start mid-chain, in both directions.
    expect((await readHistory(task.id, 7)).map((event) => event.items)).toEqual(lists);
    expect((await readHistory(task.id, 7, true)).map((event) => event.items)).toEqual([...lists].reverse());
    expect((await readHistory(task.id, 1, true)).slice(0, 40).map((event) => event.items)).toEqual([...lists].reverse().slice(0, 40));
  });

  it('gives a plan\'s list after each whole-list write', { timeout: 60_000 }, async () => {
    const session = await startSession(server);
    const statuses = ['PENDING', 'IN_PROGRESS', 'DONE'];
    const lists: Listed[][] = [];
    let planId = '';
    for (let write = 0; write < 60; write += 1) {
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

describe('history written before rows were deltas', () => {
  it('reads as it did, and later changes continue it', { timeout: 60_000 }, async () => {
    const { file, databaseUrl } = await testDatabase();
    // The schema as it stood before this change, with a task and whole-list history rows written the old way.
    const old = new DataSource({ ...dataSourceOptions(databaseUrl, 'writer'), migrations: MIGRATIONS.slice(0, -1) } as never);
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
});
