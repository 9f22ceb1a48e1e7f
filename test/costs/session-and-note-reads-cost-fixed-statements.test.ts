/**
 * The dashboard's sessions list (a page, a search, recentSessions), one
 * session's page and the pages of an item's briefs (Item.notes) cost a fixed
 * number of SQL statements, whatever the number of rows they show: counted
 * on the read connection while the query runs, for 5 rows and for 50.
 */
import { describe, expect, it } from 'vitest';
import { countedServer } from '../fixtures/statement-cost.js';
import { ADD_TASK_NOTE, CREATE_NOTE } from '../fixtures/documents.js';
import { documentOf } from '../fixtures/recorded-documents.js';
import { startSession, writeTodos } from '../fixtures/sessions.js';
import { brief } from '../fixtures/knowledge.js';
import { createTask } from '../fixtures/tasks.js';

// The dashboard's own documents, so the test counts the reads the page makes.
const SESSIONS = documentOf('web/src/views/sessions.tsx', 'SESSIONS');
const SESSION = documentOf('web/src/views/sessions.tsx', 'SESSION');
const RECENT = 'query($first: Int) { recentSessions(first: $first) { id name statusLine domains children { id } } }';
const ITEM_NOTES = `query($id: ID!, $first: Int, $after: String) { task(id: $id) { items(first: 100) { nodes { id
  notes(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { id title items { id } } }
} } } }`;

const counted = countedServer();
const { costOf } = counted;

/** `count` top-level sessions named "<tag> N", each with a plan of two steps, one done, and one helper. */
async function sessions(tag: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = await startSession(counted.server(), { name: `${tag} ${i}` });
    await writeTodos(counted.server(), id, [[`${tag} step ${i}a`, 'DONE'], [`${tag} step ${i}b`, 'IN_PROGRESS']]);
    await startSession(counted.server(), { parentId: id, name: `${tag} helper ${i}` });
    ids.push(id);
  }
  return ids;
}

/** A session with `size` helpers, a plan of `size` steps and `size` named domains. */
async function bigSession(tag: string, size: number): Promise<string> {
  const id = await startSession(counted.server(), { name: `${tag} lead` });
  await writeTodos(counted.server(), id, Array.from({ length: size }, (_, i): [string, string] => [`${tag} step ${i}`, i === 0 ? 'IN_PROGRESS' : 'PENDING']));
  for (let i = 0; i < size; i += 1) {
    const helper = await startSession(counted.server(), { parentId: id, name: `${tag} helper ${i}` });
    await writeTodos(counted.server(), helper, [[`${tag} helper step ${i}`, 'PENDING']]);
    await counted.server().ok(CREATE_NOTE, { input: { title: `${tag} note ${i}`, body: 'b', domain: `cost/${tag}/d${String(i).padStart(2, '0')}` } }, { session: id });
  }
  return id;
}

describe('the sessions list', () => {
  it('costs the same statements for a page of 50 sessions as for 5, searched or not, and recentSessions likewise', async () => {
    await sessions('Fewer', 5);
    const few = await costOf(SESSIONS, { first: 50, after: null, finished: null, search: null });
    const fewFound = await costOf(SESSIONS, { first: 50, after: null, finished: null, search: 'fewer' });
    const fewRecent = await costOf(RECENT, { first: 100 });
    await sessions('Many', 45);
    const many = await costOf(SESSIONS, { first: 50, after: null, finished: null, search: null });
    const manyFound = await costOf(SESSIONS, { first: 50, after: null, finished: null, search: 'many' });
    const manyRecent = await costOf(RECENT, { first: 100 });

    expect(few.data.sessions.totalCount).toBe(5);
    expect(many.data.sessions.totalCount).toBe(50);
    expect(many.data.sessions.nodes).toHaveLength(50);
    // Newest first, each with its helper and its status line.
    expect(many.data.sessions.nodes[0]).toMatchObject({ name: 'Many 44', statusLine: '1/2 · Many step 44b', children: [{ name: 'Many helper 44' }] });
    expect(fewFound.data.sessions.nodes.map((node: { name: string }) => node.name)).toEqual(['Fewer 4', 'Fewer 3', 'Fewer 2', 'Fewer 1', 'Fewer 0']);
    expect(manyFound.data.sessions.totalCount).toBe(45);
    expect(fewRecent.data.recentSessions).toHaveLength(5);
    expect(manyRecent.data.recentSessions).toHaveLength(50);

    expect(many.count, many.shapes).toBe(few.count);
    expect(manyFound.count, manyFound.shapes).toBe(fewFound.count);
    expect(manyRecent.count, manyRecent.shapes).toBe(fewRecent.count);
    // A handful, not one per session: the count and the page (recentSessions: one list, and the domains it shows), then
    // one per kind of row a session shows, for the sessions and their helpers together (helpers, current plans, plans,
    // their items).
    expect(many.count, many.shapes).toBeLessThanOrEqual(6);
    expect(manyRecent.count, manyRecent.shapes).toBeLessThanOrEqual(6);

    // The next page, by the cursor the first one gave, costs what the first one did.
    const firstTwo = await costOf(SESSIONS, { first: 2, after: null, finished: null, search: null });
    const nextTwo = await costOf(SESSIONS, { first: 2, after: firstTwo.data.sessions.pageInfo.endCursor, finished: null, search: null });
    expect(nextTwo.data.sessions.nodes.map((node: { name: string }) => node.name)).toEqual(['Many 42', 'Many 41']);
    expect(nextTwo.count, nextTwo.shapes).toBe(firstTwo.count);
  }, 120_000);
});

describe("a session's page", () => {
  it('costs the same statements for 50 helpers, steps and domains as for 5', async () => {
    const small = await bigSession('small', 5);
    const large = await bigSession('large', 50);
    const little = await costOf(SESSION, { id: small });
    const big = await costOf(SESSION, { id: large });

    expect(big.data.session.children).toHaveLength(50);
    expect(big.data.session.plan.items.nodes).toHaveLength(50);
    expect(big.data.session.domains).toHaveLength(50);
    expect(big.data.session.domains[49]).toBe('cost/large/d49');
    expect(big.data.session.children[49]).toMatchObject({ name: 'large helper 49', plan: { items: { nodes: [{ text: 'large helper step 49' }] } } });
    expect(little.data.session.children).toHaveLength(5);
    expect(little.data.session.statusLine).toBe('0/5 · small step 0');

    expect(big.count, big.shapes).toBe(little.count);
  }, 120_000);
});

describe("an item's briefs (Item.notes)", () => {
  /** A task of `size` items and `size` briefs, each brief on every item. */
  async function briefedTask(tag: string, size: number): Promise<string> {
    const { task, items } = await createTask(counted.server(), Array.from({ length: size }, (_, i) => `${tag} item ${i}`), { domain: `cost/${tag}` });
    for (let i = 0; i < size; i += 1) {
      await counted.server().ok(ADD_TASK_NOTE, { input: { taskId: task.id, title: `${tag} brief ${i}`, items: items.map((item) => item.id), brief: brief({ goal: `Goal ${i}` }) } });
    }
    return task.id;
  }

  it('costs the same statements for 50 items of 50 briefs as for 5 of 5, on the first page and the next', async () => {
    const small = await briefedTask('few-briefs', 5);
    const large = await briefedTask('many-briefs', 50);
    const littleFirst = await costOf(ITEM_NOTES, { id: small, first: 3, after: null });
    const bigFirst = await costOf(ITEM_NOTES, { id: large, first: 3, after: null });
    const littleNext = await costOf(ITEM_NOTES, { id: small, first: 3, after: littleFirst.data.task.items.nodes[0].notes.pageInfo.endCursor });
    const bigNext = await costOf(ITEM_NOTES, { id: large, first: 3, after: bigFirst.data.task.items.nodes[0].notes.pageInfo.endCursor });

    const bigItems = bigFirst.data.task.items.nodes;
    expect(bigItems).toHaveLength(50);
    expect(bigItems.every((item: any) => item.notes.totalCount === 50 && item.notes.nodes.length === 3 && item.notes.pageInfo.hasNextPage)).toBe(true);
    expect(bigItems[49].notes.nodes.map((note: { title: string }) => note.title)).toEqual(['many-briefs brief 0', 'many-briefs brief 1', 'many-briefs brief 2']);
    expect(bigItems[49].notes.nodes[0].items).toHaveLength(50);
    expect(bigNext.data.task.items.nodes[0].notes.nodes.map((note: { title: string }) => note.title)).toEqual(['many-briefs brief 3', 'many-briefs brief 4', 'many-briefs brief 5']);
    expect(littleNext.data.task.items.nodes[0].notes).toMatchObject({ totalCount: 5, pageInfo: { hasNextPage: false } });
    expect(littleNext.data.task.items.nodes[0].notes.nodes.map((note: { title: string }) => note.title)).toEqual(['few-briefs brief 3', 'few-briefs brief 4']);
    // Past each item's last brief: no brief on the page, and still the total.
    const past = await costOf(ITEM_NOTES, { id: small, first: 3, after: littleNext.data.task.items.nodes[0].notes.pageInfo.endCursor });
    expect(past.data.task.items.nodes.map((item: any) => [item.notes.totalCount, item.notes.nodes.length])).toEqual(Array(5).fill([5, 0]));

    expect(bigFirst.count, bigFirst.shapes).toBe(littleFirst.count);
    expect(bigNext.count, bigNext.shapes).toBe(littleNext.count);
    // Counting the items no brief of the page carries is one statement, for any number of items.
    expect(past.count, past.shapes).toBeLessThanOrEqual(littleNext.count + 1);
  }, 180_000);
});
