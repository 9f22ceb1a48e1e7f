/**
 * A history row records what changed, not the whole list: one updateItem adds
 * about as many bytes to history on a task of 500 items as on one of 50, so
 * one write token cannot fill the disk by changing a long list over and over,
 * and the list after each event still reads back exactly as it stood
 * (history-lists-read-as-they-stood.test.ts covers every kind of change).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS, UPDATE_ITEM } from '../fixtures/documents.js';
import { listed, readHistory, type Listed } from '../fixtures/history.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const STATES = ['PENDING', 'IN_PROGRESS', 'DONE', 'BLOCKED'] as const;
/** Enough updates that the bytes counted include several whole lists (checkpoints) on either task, not deltas alone. */
const UPDATES = 160;

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

describe('history grows by what changed', () => {
  it('adds about the same bytes per updateItem on a task of 500 items as on one of 50, and reads back each list exactly', { timeout: 180_000 }, async () => {
    // The two tasks are changed side by side (each one's changes in order), to keep the test short.
    const perEvent: Record<number, number> = {};
    await Promise.all([50, 500].map(async (size) => {
      const task = await taskOf(size);
      const { lastId } = await storedHistory(task.id);
      await updateStates(task, UPDATES);
      const added = await storedHistory(task.id, lastId);
      expect(added.events).toBe(UPDATES);
      expect(added.wholeLists, 'checkpoints among the rows counted').toBeGreaterThanOrEqual(2);
      perEvent[size] = added.bytes / added.events;
      const history = await readHistory(server, task.id, 100);
      expect(history.map((event) => event.items)).toEqual(task.lists);
    }));
    console.log(`history bytes per updateItem: 50 items ${perEvent[50]!.toFixed(0)}, 500 items ${perEvent[500]!.toFixed(0)}`);
    expect(perEvent[500]).toBeLessThanOrEqual(1.5 * perEvent[50]!);
    expect(perEvent[500]).toBeLessThan(2048);
  });
});
