/**
 * A dashboard-style query of one task costs a fixed number of SQL statements,
 * whatever the number of its items, notes and comments: counted on the read
 * connection while the query runs, for a large task and a small one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS, DELETE_ITEM, UPDATE_ITEM, ADD_COMMENT, ADD_TASK_NOTE, CREATE_NOTE } from '../fixtures/documents.js';
import { brief } from '../fixtures/knowledge.js';
import { createTask } from '../fixtures/tasks.js';
// The page's own documents, which `npm run bench` sends too, so the test counts the read the dashboard makes.
import { FIRST_PAGE, PAGE, TASK_HEAD, TASK_ITEMS, TASK_OPENED } from '../../web/src/dashboard-documents.mjs';

let statements: string[] = [];
let server: TestServer;
beforeAll(async () => { server = await startTestServer({ onReadQuery: (sql) => statements.push(sql) }); });
afterAll(async () => { await server?.close(); });

interface Shape { items: number; briefs: number; wholeNotes: number; itemComments: number; taskComments: number; links: number }

/** Builds a task of this shape: every kind of row the dashboard reads, with [[#id]] tokens throughout. */
async function buildTask(shape: Shape, tag: string) {
  const labels = Array.from({ length: shape.items }, (_, i) => `Item ${tag} ${i + 1}`);
  const { task, items } = await createTask(server, labels.slice(0, 100), { domain: `cost/${tag}` });
  const all = [...items];
  for (let start = 100; start < labels.length; start += 100) {
    all.push(...(await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: labels.slice(start, start + 100) } })).addItems.items);
  }
  const id = (i: number) => all[i % all.length].id;

  for (let i = 0; i < shape.briefs; i += 1) {
    await server.ok(ADD_TASK_NOTE, { input: {
      taskId: task.id, title: `Brief ${i}`, items: i % 2 ? [id(i)] : [id(i), id(i + 1)],
      brief: brief({
        goal: `Finish [[#${id(i)}]] after [[#${id(i + 2)}]].`, steps: `Read [[#${id(i + 3)}]], then [[#${id(i)}]].`,
        extraInfo: i % 3 ? `See [[#${id(i + 4)}]].` : null,
        dependsOn: [{ item: id(i + 2), reason: `needs [[#${id(i + 2)}]]` }, { item: id(i + 5) }],
      }),
    } });
  }
  for (let i = 0; i < shape.wholeNotes; i += 1) {
    await server.ok(ADD_TASK_NOTE, { input: { taskId: task.id, title: `Rule ${i}`, body: `Mind [[#${id(i * 7)}]] and [[#${id(i * 7 + 1)}]].` } });
  }
  for (let i = 0; i < shape.itemComments; i += 1) {
    await server.ok(ADD_COMMENT, { input: { taskId: task.id, item: id(i), body: `On it, like [[#${id(i + 1)}]].` } });
  }
  for (let i = 0; i < shape.taskComments; i += 1) {
    await server.ok(ADD_COMMENT, { input: { taskId: task.id, body: `Progress on [[#${id(i * 3)}]].` } });
  }
  for (let i = 0; i < shape.links; i += 1) {
    const made = (await server.ok(CREATE_NOTE, { input: { title: `Why ${tag} ${i}`, body: 'Because.', domain: `cost/${tag}` } })).createNote;
    await server.ok(UPDATE_ITEM, { input: { id: id(i * 2), related: [made.id, task.id] } });
  }
  await server.ok(UPDATE_ITEM, { input: { id: id(0), state: 'DONE', comment: `Done before [[#${id(1)}]].` } });
  await server.ok(UPDATE_ITEM, { input: { id: id(1), state: 'IN_PROGRESS' } });
  await server.ok(UPDATE_ITEM, { input: { id: id(3), state: 'IN_PROGRESS' } });
  // A deleted item stays cited and depended on.
  await server.ok(DELETE_ITEM, { id: id(2) });
  return { task, items: all };
}

/**
 * A dashboard's view of one task, in the two queries it sends: a page of items (the list; 200 here, two of the
 * page's own pages, so the whole list of the big task comes in one read), then the head (notes, comments).
 */
async function dashboard(taskId: string) {
  statements = [];
  const items = await server.ok(TASK_ITEMS, { id: taskId, deleted: false, first: 2 * PAGE, after: null });
  const forItems = statements;
  statements = [];
  const knowledge = await server.ok(TASK_HEAD, { id: taskId });
  const forKnowledge = statements;
  statements = [];
  const data = { task: { ...items.task, ...knowledge.task } };
  return { task: data.task, statements: [...forItems, ...forKnowledge], perQuery: [forItems.length, forKnowledge.length] };
}

/** Opening a task in one query, as `npm run bench` sends it: the head and the first page of items. */
async function benchDashboard(taskId: string) {
  statements = [];
  const data = await server.ok(TASK_OPENED, { id: taskId, deleted: false, first: FIRST_PAGE, after: null });
  const issued = statements;
  statements = [];
  return { task: data.task, statements: issued };
}

/** Statements with their literal values blanked, grouped by shape, most frequent first. */
function shapes(list: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const sql of list) {
    const shape = sql.replace(/\s+/g, ' ').replace(/\b\d+\b/g, 'N').slice(0, 200);
    counts.set(shape, (counts.get(shape) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]);
}

describe('dashboard query cost', () => {
  it('is the same number of SQL statements for 200 items / 50 notes / 100 comments as for 20 / 5 / 10', async () => {
    const big = await buildTask({ items: 200, briefs: 40, wholeNotes: 10, itemComments: 59, taskComments: 40, links: 10 }, 'big');
    const small = await buildTask({ items: 20, briefs: 4, wholeNotes: 1, itemComments: 5, taskComments: 4, links: 2 }, 'small');

    const large = await dashboard(big.task.id);
    // The answer is whole: every item, note and comment, rendered.
    expect(large.task.items.totalCount).toBe(199);
    expect(large.task.items.nodes).toHaveLength(199);
    expect(large.task.notes.totalCount).toBe(50);
    expect(large.task.notes.nodes).toHaveLength(50);
    expect(large.task.comments.totalCount).toBe(100);
    expect(large.task.comments.nodes).toHaveLength(100);
    expect(large.task.progress).toMatchObject({ total: 199, done: 1 });
    const live = large.task.items.nodes as { id: string; number: number; state: string; related: unknown[] }[];
    expect(live.filter((item) => item.state === 'IN_PROGRESS').map((item) => item.id)).toEqual([big.items[1].id, big.items[3].id]);
    const first = live[0];
    expect(first).toMatchObject({ id: big.items[0].id, number: 1, state: 'DONE' });
    expect(first.related).toHaveLength(2);
    expect(large.task.comments.nodes.filter((c: { item: { id: string } | null }) => c.item?.id === big.items[0].id)).toHaveLength(2);
    expect(large.task.notes.nodes.filter((n: { items: { id: string }[] }) => n.items.some((i) => i.id === big.items[0].id))).toHaveLength(1);
    // A deleted item stays cited and depended on, read by id.
    const deleted = { id: big.items[2].id, number: null, text: big.items[2].text, deleted: true };
    const brief0 = large.task.notes.nodes.find((n: { title: string }) => n.title === 'Brief 0');
    expect(brief0.brief.dependsOn[0]).toEqual({ item: deleted, reason: `needs [[#${big.items[2].id}]]` });
    expect(brief0.refs).toContainEqual(deleted);

    const little = await dashboard(small.task.id);
    expect(little.task.items.totalCount).toBe(19);
    expect(little.task.notes.totalCount).toBe(5);
    expect(little.task.comments.totalCount).toBe(10);

    const report = `large: ${large.statements.length} statements, small: ${little.statements.length}\n` +
      shapes(large.statements).map(([sql, n]) => `${n} × ${sql}`).join('\n');
    expect(large.statements.length, report).toBe(little.statements.length);
    // A handful of statements, not one per row: at most one per kind of row the query shows. The page of items: the
    // task, its live items, their links, their claims, what they wait for (ready) and what they block. The head: the
    // task, its items (what [[#id]] tokens read as), the deleted ones cited (by id), a page of comments, a page of
    // notes with their items, and the history's newest event with its count.
    expect(large.perQuery[0], report).toBeLessThanOrEqual(6);
    expect(large.perQuery[1], report).toBeLessThanOrEqual(6);

    // Opening a task in one query, as the bench does: at most 9 statements, the head's 6, the page's links and their
    // memories (two statements, each bounded in size: linked-memory-reader.ts), and its claims with what its items
    // wait for and block, in one statement (the task and its live items are read once for both), the same for either task.
    const bigRead = await benchDashboard(big.task.id);
    const smallRead = await benchDashboard(small.task.id);
    const benchReport = shapes(bigRead.statements).map(([sql, n]) => `${n} × ${sql}`).join('\n');
    expect(bigRead.task.items.nodes).toHaveLength(FIRST_PAGE);
    expect(bigRead.task.items.nodes[0]).toEqual(first);
    expect(bigRead.task.notes.totalCount).toBe(50);
    expect(bigRead.task.comments.totalCount).toBe(100);
    expect(bigRead.statements.length, benchReport).toBeLessThanOrEqual(9);
    expect(bigRead.statements.length, benchReport).toBe(smallRead.statements.length);
    // Building the two tasks takes some 170 calls: on a busy machine, more than the default 30 s.
  }, 120_000);
});

describe('list query cost', () => {
  const LIST = `query($domain: String!) {
    mustRead(domain: $domain) {
      id title state progress { done total } inProgress { id text }
      notes { totalCount nodes { title } }
      comments(includeItems: true) { totalCount nodes { bodyText } }
      items(first: 20) { nodes { id number comments { totalCount } } }
    }
  }`;

  /** `count` open tasks in `domain`, each with a note and two comments. */
  async function tasksIn(domain: string, count: number) {
    for (let i = 0; i < count; i += 1) {
      const { task, items } = await createTask(server, [`Step ${i}a`, `Step ${i}b`], { domain });
      await server.ok(ADD_TASK_NOTE, { input: { taskId: task.id, title: `Note ${i}`, body: `About [[#${items[0].id}]].` } });
      await server.ok(ADD_COMMENT, { input: { taskId: task.id, body: 'On the task.' } });
      await server.ok(ADD_COMMENT, { input: { taskId: task.id, item: items[1].id, body: 'On an item.' } });
    }
  }

  async function cost(domain: string) {
    statements = [];
    const data = await server.ok(LIST, { domain });
    const issued = statements.length;
    statements = [];
    return { tasks: data.mustRead as { notes: { totalCount: number }; comments: { totalCount: number } }[], issued };
  }

  it('is the same number of statements for 12 tasks as for 3, notes and comments included', async () => {
    await tasksIn('cost/list-few', 3);
    await tasksIn('cost/list-many', 12);
    const few = await cost('cost/list-few');
    const many = await cost('cost/list-many');
    expect(few.tasks).toHaveLength(3);
    expect(many.tasks).toHaveLength(12);
    expect(many.tasks.every((task) => task.notes.totalCount === 1 && task.comments.totalCount === 2)).toBe(true);
    expect(many.issued).toBe(few.issued);
  });
});
