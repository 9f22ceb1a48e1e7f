/**
 * Every list reads at most what its answer may carry before its rows are
 * loaded: a task with thousands of notes or deleted items, an item with
 * a thousand briefs, a session with more domains or helpers than it may
 * list, each read with a small page, reads a bounded number of rows and
 * answers as before. Each statement a read sent is run again on the
 * database to count the rows it brought back (the harness's onReadQuery
 * hook gives its text and parameters).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_COMMENT, ADD_ITEMS, START_SESSION } from '../fixtures/documents.js';
import { brief } from '../fixtures/knowledge.js';
import { createTask } from '../fixtures/tasks.js';
import { In } from 'typeorm';
import { ItemEntity, SessionDomainEntity, SessionEntity } from '../../src/db/entities/index.js';

let server: TestServer;
let reads: { sql: string; parameters: readonly unknown[] }[] = [];
beforeAll(async () => { server = await startTestServer({ onReadQuery: (sql, parameters) => reads.push({ sql, parameters: parameters ?? [] }) }); });
afterAll(async () => { await server?.close(); });

/** Sends `query`; returns its data and the rows each statement it read with brings back, run again. */
async function counted(query: string, variables?: Record<string, unknown>) {
  reads = [];
  const data = await server.ok(query, variables);
  const statements = reads;
  reads = [];
  const rows: number[] = [];
  // better-sqlite3 binds no booleans: selectRows sends them as numbers, and so does this.
  const bound = (value: unknown) => (typeof value === 'boolean' && server.app.services.db.kind === 'sqlite' ? Number(value) : value);
  for (const statement of statements) rows.push((await server.app.services.db.reader.query(statement.sql, statement.parameters.map(bound))).length);
  return { data, rows, most: Math.max(0, ...rows), total: rows.reduce((sum, n) => sum + n, 0) };
}

/** Runs `count` mutation fields made by `field(i)`, `per` to a request. */
async function inBatches(count: number, per: number, field: (index: number) => string): Promise<any[]> {
  const answers: any[] = [];
  for (let start = 0; start < count; start += per) {
    const fields = Array.from({ length: Math.min(per, count - start) }, (_, i) => `m${i}: ${field(start + i)}`);
    answers.push(...Object.values(await server.ok(`mutation { ${fields.join('\n')} }`)));
  }
  return answers;
}

describe('a task with 2,000 notes, 1,000 of them briefs on one item', () => {
  let taskId: string;
  let items: { id: string; text: string }[];
  let noteIds: string[];

  beforeAll(async () => {
    ({ task: { id: taskId }, items } = await createTask(server, ['Briefed', 'Waited for', 'Plain'], { domain: 'bounds/notes' }));
    const [briefed, waited] = items;
    const input = (fields: object) => JSON.stringify(brief(fields)).replace(/"(\w+)":/g, '$1:');
    const waiting = input({ dependsOn: [{ item: waited.id, reason: `needs [[#${waited.id}]]` }] });
    const plain = input({ dependsOn: [] });
    // Every other note a brief on the first item, the first of them waiting for the second (an item waits by at most 50 edges); the rest whole-task notes.
    noteIds = (await inBatches(2_000, 50, (i) => (i % 2
      ? `addTaskNote(input: { taskId: "${taskId}", title: "Brief ${i}", items: ["${briefed.id}"], brief: ${i === 1 ? waiting : plain} }) { id }`
      : `addTaskNote(input: { taskId: "${taskId}", title: "Rule ${i}", body: "Mind [[#${waited.id}]] at step ${i}." }) { id }`))).map((note) => note.id);
  }, 600_000);

  it('Task.notes(first: 1) reads one page of notes, not 2,000, and answers the same', async () => {
    const first = await counted(`{ task(id: "${taskId}") { notes(first: 1) { totalCount pageInfo { hasNextPage endCursor } nodes { id title bodyText items { id } } } } }`);
    expect(first.data.task.notes).toMatchObject({ totalCount: 2_000, pageInfo: { hasNextPage: true }, nodes: [{ id: noteIds[0], title: 'Rule 0', bodyText: `Mind [#2 Waited for] at step 0.`, items: [] }] });
    // The task, its live items, and the page: its note and the one after it, each with its links.
    expect(first.most).toBeLessThanOrEqual(3);
    const next = await counted(`{ task(id: "${taskId}") { notes(first: 2, after: "${first.data.task.notes.pageInfo.endCursor}") { totalCount nodes { id items { id } } } } }`);
    expect(next.data.task.notes.totalCount).toBe(2_000);
    expect(next.data.task.notes.nodes).toEqual([{ id: noteIds[1], items: [{ id: items[0].id }] }, { id: noteIds[2], items: [] }]);
    expect(next.most).toBeLessThanOrEqual(4);
  });

  it('Item.notes, its count and Item.dependsOn read a page, a count and one dependency, not 1,000 briefs', async () => {
    const read = await counted(`{ task(id: "${taskId}") { items(first: 3) { nodes {
      id notes(first: 2) { totalCount nodes { id title } } dependsOn { item { id number } reason }
    } } } }`);
    const [briefed, waited, plain] = read.data.task.items.nodes;
    expect(briefed.notes).toEqual({ totalCount: 1_000, nodes: [{ id: noteIds[1], title: 'Brief 1' }, { id: noteIds[3], title: 'Brief 3' }] });
    expect(briefed.dependsOn).toEqual([{ item: { id: items[1].id, number: 2 }, reason: `needs [[#${items[1].id}]]` }]);
    expect(waited).toMatchObject({ notes: { totalCount: 0, nodes: [] }, dependsOn: [] });
    expect(plain.dependsOn).toEqual([]);
    // Per item: its page of briefs (and one more), and one row of counts plus one per distinct dependency.
    expect(read.most).toBeLessThanOrEqual(6);

    const counts = await counted(`{ task(id: "${taskId}") { items { nodes { notes { totalCount } comments { totalCount } } } } }`);
    expect(counts.data.task.items.nodes.map((item: any) => item.notes.totalCount)).toEqual([1_000, 0, 0]);
    // One row per item (its counts) and one per distinct dependency: none of the 1,000 briefs.
    expect(counts.most).toBeLessThanOrEqual(4);
  });

  it('Task.notes(item:) pages the briefs on that item in SQL', async () => {
    const read = await counted(`{ task(id: "${taskId}") { notes(first: 1, item: "${items[0].id}") { totalCount nodes { id } } } }`);
    expect(read.data.task.notes).toEqual({ totalCount: 1_000, nodes: [{ id: noteIds[1] }] });
    expect(read.most).toBeLessThanOrEqual(3);
  });
});

describe('a task with 3,000 deleted items', () => {
  let taskId: string;
  let cited: { id: string; text: string };
  let live: { id: string }[];

  beforeAll(async () => {
    const made = await createTask(server, ['Kept 1', 'Kept 2', 'Kept 3'], { domain: 'bounds/deleted' });
    taskId = made.task.id;
    live = made.items;
    let first: { id: string; text: string } | undefined;
    for (let round = 0; round < 30; round += 1) {
      const added: { id: string; text: string }[] = (await server.ok(ADD_ITEMS, { input: { taskId, items: Array.from({ length: 100 }, (_, i) => `Gone ${round * 100 + i}`) } })).addItems.items;
      first ??= added[0];
      // These tests read the deleted rows, not how they were deleted, and 3,000 deleteItems (one write each over a
      // growing task) would cost most of this file's time. So 99 of each 100 are marked deleted in one statement, as
      // deleteItem marks them, and the last by deleteItem, whose write recounts the task's items, its ready rows and
      // its search text from the rows as they now stand.
      await server.app.services.db.transaction((manager) => manager.update(ItemEntity, { id: In(added.slice(0, -1).map((item) => Number(item.id))) }, { deleted: true, updatedAt: new Date().toISOString() }));
      await server.ok(`mutation { deleteItem(id: "${added[added.length - 1].id}") { id } }`);
    }
    cited = first!;
    await server.ok(ADD_COMMENT, { input: { taskId, body: `Was [[#${cited.id}]], now [[#${live[0].id}]].` } });
  }, 900_000);

  it('a page of live items reads the live items only', async () => {
    const read = await counted(`{ task(id: "${taskId}") { progress { total } items(first: 2) { totalCount pageInfo { hasNextPage } nodes { id number } } inProgress { id } } }`);
    expect(read.data.task.items).toEqual({ totalCount: 3, pageInfo: { hasNextPage: true }, nodes: [{ id: live[0].id, number: 1 }, { id: live[1].id, number: 2 }] });
    expect(read.total).toBeLessThanOrEqual(4);
  });

  it('includeDeleted reads one page of them in SQL, where they stood, numbered null', async () => {
    const firstPage = await counted(`{ task(id: "${taskId}") { items(first: 4, includeDeleted: true) { totalCount pageInfo { endCursor } nodes { id number deleted } } } }`);
    expect(firstPage.data.task.items.totalCount).toBe(3_003);
    expect(firstPage.data.task.items.nodes).toEqual([
      ...live.map((item, i) => ({ id: item.id, number: i + 1, deleted: false })),
      { id: cited.id, number: null, deleted: true },
    ]);
    expect(firstPage.most).toBeLessThanOrEqual(5);
    // A cursor on a deleted item marks its place in the live list too.
    const after = firstPage.data.task.items.pageInfo.endCursor;
    const liveAfter = await counted(`{ task(id: "${taskId}") { items(first: 2, after: "${after}") { totalCount nodes { id } } } }`);
    expect(liveAfter.data.task.items).toEqual({ totalCount: 3, nodes: [] });
    expect(liveAfter.total).toBeLessThanOrEqual(5);
  });

  it('[[#id]] of a deleted item reads that item by id, not the 3,000', async () => {
    const read = await counted(`{ task(id: "${taskId}") { comments(first: 5) { refs { id number deleted } nodes { bodyText refs { id deleted } } } } }`);
    const [comment] = read.data.task.comments.nodes;
    expect(comment.bodyText).toBe(`Was [deleted item: ${cited.text}], now [#1 Kept 1].`);
    expect(comment.refs).toEqual([{ id: cited.id, deleted: true }, { id: live[0].id, deleted: false }]);
    expect(read.data.task.comments.refs).toEqual([{ id: cited.id, number: null, deleted: true }, { id: live[0].id, number: 1, deleted: false }]);
    expect(read.total).toBeLessThanOrEqual(8);
  });
});

describe('sessions', () => {
  it('a session keeps at most 100 domains: past them a newly named one is not recorded, and the call goes on', async () => {
    const session = (await server.ok(START_SESSION, {})).startSession.id;
    const name = (from: number, count: number) => Array.from({ length: count }, (_, i) => `d${from + i}: memories(domain: "bounds/domain-${String(from + i).padStart(3, '0')}", first: 1) { totalCount }`).join('\n');
    await server.ok(`{ ${name(0, 50)} }`, undefined, { session });
    await server.ok(`{ ${name(50, 50)} }`, undefined, { session });
    const past = await server.ok(`{ ${name(100, 20)} }`, undefined, { session });
    expect(Object.keys(past)).toHaveLength(20);
    const read = await counted(`{ session(id: "${session}") { domains } }`);
    expect(read.data.session.domains).toEqual(Array.from({ length: 100 }, (_, i) => `bounds/domain-${String(i).padStart(3, '0')}`));
  });

  it('Session.domains and Session.children read at most their caps, even when more rows are stored', async () => {
    const session = (await server.ok(START_SESSION, {})).startSession.id;
    // Rows past the caps can only be stored behind the services' back (an older server, a hand edit): written directly.
    await server.app.services.db.transaction(async (manager) => {
      await manager.insert(SessionDomainEntity, Array.from({ length: 150 }, (_, i) => ({ sessionId: session, domain: `bounds/stored-${String(i).padStart(3, '0')}`, createdAt: new Date().toISOString() })));
      const parent = await manager.findOneByOrFail(SessionEntity, { id: session });
      for (let i = 0; i < 150; i += 1) {
        await manager.insert(SessionEntity, { ...parent, id: `${session}-helper-${String(i).padStart(3, '0')}`, parentId: session, createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString() });
      }
    });
    const read = await counted(`{ session(id: "${session}") { domains children { id } } }`);
    expect(read.data.session.domains).toEqual(Array.from({ length: 100 }, (_, i) => `bounds/stored-${String(i).padStart(3, '0')}`));
    expect(read.data.session.children.map((child: { id: string }) => child.id)).toEqual(Array.from({ length: 100 }, (_, i) => `${session}-helper-${String(i).padStart(3, '0')}`));
    expect(read.most).toBeLessThanOrEqual(100);
  });
});
