/** Keyset pagination of Task.items and Task.history: page sizes, cursors, walking every row once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS, DELETE_ITEM, MOVE_ITEM, READ_HISTORY, UPDATE_ITEM } from '../fixtures/documents.js';
import { databaseState } from '../fixtures/nothing-recorded.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const ITEMS_PAGE = `query($id: ID!, $first: Int, $after: String, $includeDeleted: Boolean) {
  task(id: $id) { items(first: $first, after: $after, includeDeleted: $includeDeleted) {
    totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id number text } } nodes { id }
  } }
}`;

interface Page { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; edges: { cursor: string; node: { id: string; number: number | null; text: string } }[]; nodes: { id: string }[] }

async function itemsPage(id: string, variables: Record<string, unknown>): Promise<Page> {
  return (await server.ok(ITEMS_PAGE, { id, ...variables })).task.items;
}

/** Follows endCursor from the first page to the last; returns every node id seen, in order, and the page count. */
async function walk(fetchPage: (after: string | null) => Promise<Page>): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let after: string | null = null;
  let pages = 0;
  for (;;) {
    const page = await fetchPage(after);
    pages += 1;
    expect(page.edges).toHaveLength(page.nodes.length);
    if (page.edges[0]?.node) expect(page.nodes.map((n) => n.id)).toEqual(page.edges.map((e) => e.node.id));
    ids.push(...page.nodes.map((n) => n.id));
    if (page.edges.length) expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)!.cursor);
    if (!page.pageInfo.hasNextPage) return { ids, pages };
    after = page.pageInfo.endCursor;
    expect(pages).toBeLessThan(1000);
  }
}

const labels = (from: number, count: number) => Array.from({ length: count }, (_, i) => `Step ${from + i}`);

let bigTask: { id: string; itemIds: string[] };
beforeAll(async () => {
  const { task, items } = await createTask(server, labels(1, 100));
  const more = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: labels(101, 20) } })).addItems.items;
  bigTask = { id: task.id, itemIds: [...items, ...more].map((item: { id: string }) => item.id) };
});

describe('Task.items pages', () => {
  it('defaults to 50 and reports the whole count', async () => {
    const page = await itemsPage(bigTask.id, {});
    expect(page.nodes).toHaveLength(50);
    expect(page.totalCount).toBe(120);
    expect(page.pageInfo.hasNextPage).toBe(true);
    expect(page.edges.map((e) => e.node.number)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('takes first from 1 to 200', async () => {
    expect((await itemsPage(bigTask.id, { first: 1 })).nodes).toHaveLength(1);
    const all = await itemsPage(bigTask.id, { first: 200 });
    expect(all.nodes.map((n) => n.id)).toEqual(bigTask.itemIds);
    expect(all.pageInfo.hasNextPage).toBe(false);
  });

  it('walking pages with endCursor gives every item once, in order', async () => {
    const { ids, pages } = await walk((after) => itemsPage(bigTask.id, { first: 7, after }));
    expect(ids).toEqual(bigTask.itemIds);
    expect(pages).toBe(Math.ceil(120 / 7));
  });

  it('an exact multiple ends with hasNextPage false, not an empty extra page', async () => {
    const { ids, pages } = await walk((after) => itemsPage(bigTask.id, { first: 40, after }));
    expect(ids).toHaveLength(120);
    expect(pages).toBe(3);
  });

  it('refuses first over 200 with TOO_LARGE, and first 0 or negative with BAD_USER_INPUT', async () => {
    const tooLarge = await server.refused(ITEMS_PAGE, { id: bigTask.id, first: 201 });
    expect(tooLarge.code).toBe('TOO_LARGE');
    expect(tooLarge.message).toMatch(/200/);
    expect(tooLarge.message).toMatch(/endCursor/);
    for (const first of [0, -5]) {
      const error = await server.refused(ITEMS_PAGE, { id: bigTask.id, first });
      expect(error.code, `first ${first}`).toBe('BAD_USER_INPUT');
      expect(error.message).toMatch(/1 to 200/);
    }
  });

  it('refuses an after that is not a cursor of this list with BAD_USER_INPUT', async () => {
    const historyCursor = (await server.ok(READ_HISTORY, { id: bigTask.id, first: 1 })).task.history.pageInfo.endCursor;
    const otherTask = await createTask(server, ['Elsewhere']);
    const otherCursor = (await itemsPage(otherTask.task.id, { first: 1 })).pageInfo.endCursor;
    for (const after of ['garbage', '', '!!!', Buffer.from('{"a":1}').toString('base64url'), historyCursor, otherCursor]) {
      const error = await server.refused(ITEMS_PAGE, { id: bigTask.id, first: 5, after });
      expect(error.code, `after ${JSON.stringify(after)}`).toBe('BAD_USER_INPUT');
      expect(error.message).toMatch(/endCursor/);
    }
  });

  it('is keyset: deleting a row before the cursor neither skips nor repeats the rows after it', async () => {
    const { task, items } = await createTask(server, labels(1, 10));
    const first = await itemsPage(task.id, { first: 4 });
    await server.ok(DELETE_ITEM, { id: items[1].id });
    const second = await itemsPage(task.id, { first: 4, after: first.pageInfo.endCursor });
    expect(second.nodes.map((n) => n.id)).toEqual(items.slice(4, 8).map((i) => i.id));
    expect(second.edges.map((e) => e.node.number)).toEqual([4, 5, 6, 7]);
  });

  it('continues after the cursor row even when that row was deleted since', async () => {
    const { task, items } = await createTask(server, labels(1, 6));
    const first = await itemsPage(task.id, { first: 3 });
    await server.ok(DELETE_ITEM, { id: items[2].id });
    const second = await itemsPage(task.id, { first: 3, after: first.pageInfo.endCursor });
    expect(second.nodes.map((n) => n.id)).toEqual(items.slice(3, 6).map((i) => i.id));
  });

  it('with includeDeleted, walks deleted items too, where they stood, numbered null', async () => {
    const { task, items } = await createTask(server, labels(1, 9));
    for (const index of [0, 4, 8]) await server.ok(DELETE_ITEM, { id: items[index].id });
    const { ids } = await walk((after) => itemsPage(task.id, { first: 2, after, includeDeleted: true }));
    expect(ids).toEqual(items.map((i) => i.id));
    const page = await itemsPage(task.id, { first: 200, includeDeleted: true });
    expect(page.totalCount).toBe(9);
    expect(page.edges.map((e) => e.node.number)).toEqual([null, 1, 2, 3, null, 4, 5, 6, null]);
    const live = await walk((after) => itemsPage(task.id, { first: 2, after }));
    expect(live.ids).toEqual(items.filter((_, i) => ![0, 4, 8].includes(i)).map((i) => i.id));
  });

  it('follows list order after a move', async () => {
    const { task, items } = await createTask(server, labels(1, 5));
    await server.ok(MOVE_ITEM, { input: { id: items[4].id } });
    const { ids } = await walk((after) => itemsPage(task.id, { first: 2, after }));
    expect(ids).toEqual([items[4], ...items.slice(0, 4)].map((i) => i.id));
  });
});

describe('Task.history pages', () => {
  let history: { taskId: string; eventIds: string[] };
  beforeAll(async () => {
    const { task, items } = await createTask(server, ['A']);
    const states = ['IN_PROGRESS', 'PENDING'];
    for (let i = 0; i < 64; i += 1) await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: states[i % 2] } });
    const all = (await server.ok(READ_HISTORY, { id: task.id, first: 200 })).task.history;
    history = { taskId: task.id, eventIds: all.nodes.map((n: { id: string }) => n.id) };
  });

  const page = async (first: number | undefined, after: string | null) =>
    (await server.ok(READ_HISTORY, { id: history.taskId, first, after })).task.history as Page;

  it('holds one event per change, oldest first, and defaults to 50 per page', async () => {
    expect(history.eventIds).toHaveLength(65);
    const first = await page(undefined, null);
    expect(first.nodes).toHaveLength(50);
    expect(first.totalCount).toBe(65);
    expect(first.pageInfo.hasNextPage).toBe(true);
  });

  it('walking pages with endCursor gives every event once, in order', async () => {
    const { ids, pages } = await walk((after) => page(9, after));
    expect(ids).toEqual(history.eventIds);
    expect(pages).toBe(Math.ceil(65 / 9));
  });

  it('a cursor stays valid while new events are recorded, and the next page picks them up', async () => {
    const { task, items } = await createTask(server, ['A', 'B']);
    const first = await (async () => (await server.ok(READ_HISTORY, { id: task.id, first: 1 })).task.history as Page)();
    await server.ok(UPDATE_ITEM, { input: { id: items[1].id, state: 'DONE' } });
    const next = (await server.ok(READ_HISTORY, { id: task.id, first: 5, after: first.pageInfo.endCursor })).task.history as Page;
    expect(next.nodes).toHaveLength(1);
    expect(next.totalCount).toBe(2);
  });

  it('a page past the last event, either way, is empty and still counts the whole history', async () => {
    const whole = await page(65, null);
    const past = await page(5, whole.pageInfo.endCursor);
    expect(past.nodes).toEqual([]);
    expect(past.totalCount).toBe(65);
    expect(past.pageInfo.hasNextPage).toBe(false);
    const NEWEST = `query($id: ID!, $after: String) { task(id: $id) { history(first: 65, after: $after, newestFirst: true) { totalCount pageInfo { endCursor } nodes { id } } } }`;
    const newest = (await server.ok(NEWEST, { id: history.taskId, after: null })).task.history;
    expect(newest.nodes.map((n: { id: string }) => n.id)).toEqual([...history.eventIds].reverse());
    const before = (await server.ok(NEWEST, { id: history.taskId, after: newest.pageInfo.endCursor })).task.history;
    expect(before).toEqual({ totalCount: 65, pageInfo: { endCursor: null }, nodes: [] });
  });

  it('refuses first 201 with TOO_LARGE, first 0 and garbage after with BAD_USER_INPUT, and records nothing', async () => {
    const before = await databaseState(server);
    const tooLarge = await server.refused(READ_HISTORY, { id: history.taskId, first: 201 });
    expect(tooLarge.code).toBe('TOO_LARGE');
    expect((await server.refused(READ_HISTORY, { id: history.taskId, first: 0 })).code).toBe('BAD_USER_INPUT');
    const itemCursor = (await itemsPage(history.taskId, { first: 1 })).pageInfo.endCursor;
    for (const after of ['garbage', Buffer.from('["abc"]').toString('base64url'), Buffer.from('[1,2]').toString('base64url'), itemCursor]) {
      const error = await server.refused(READ_HISTORY, { id: history.taskId, first: 5, after });
      expect(error.code, `after ${after}`).toBe('BAD_USER_INPUT');
    }
    expect(await databaseState(server)).toEqual(before);
  });
});

describe('cursors of the other lists', () => {
  it('refuse a forged or foreign cursor with BAD_USER_INPUT, never an internal error', async () => {
    const { task } = await createTask(server, ['Check cursors'], { domain: 'paging/cursors' });
    const forged = [Buffer.from('["abc"]').toString('base64url'), Buffer.from('[1,2,3]').toString('base64url'), 'garbage'];
    const lists = [
      'query($after: String) { memories(domain: "paging", after: $after) { totalCount } }',
      'query($after: String) { search(query: "cursor", after: $after) { totalCount } }',
      `query($after: String) { task(id: "${task.id}") { notes(after: $after) { totalCount } comments(after: $after) { totalCount } } }`,
    ];
    for (const query of lists) {
      for (const after of forged) {
        const refused = await server.refused(query, { after });
        expect(refused.code, `${query} with ${after}`).toBe('BAD_USER_INPUT');
      }
    }
  });
});
