/**
 * A dashboard-style query of one task costs a fixed number of SQL statements,
 * whatever the number of its items, notes and comments: counted on the read
 * connection while the query runs, for a large task and a small one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';
import { ADD_ITEMS, DELETE_ITEM, UPDATE_ITEM, ADD_COMMENT, ADD_TASK_NOTE, CREATE_NOTE, REF } from './fixtures/documents.js';
import { brief } from './fixtures/knowledge.js';
import { createTask } from './fixtures/tasks.js';
// The bench's own query document, so the test and `npm run bench` count the same read.
import { DASHBOARD } from '../bench/workloads.mjs';

let statements: string[] = [];
let server: TestServer;
beforeAll(async () => { server = await startTestServer({ onReadQuery: (sql) => statements.push(sql) }); });
afterAll(async () => { await server?.close(); });

/**
 * A dashboard's view of one task, in the two queries it sends: the checklist,
 * then the notes and comments. (In one query, pages of 200 of each could
 * resolve more than the cost limit allows, counting every list at its most.)
 */
const DASHBOARD_ITEMS = `query($id: ID!) {
  task(id: $id) {
    id title goal goalText goalRefs { ${REF} } state status version updatedAt
    progress { done total pending inProgress dropped blocked failed }
    inProgress { id number text state }
    items(first: 200) {
      totalCount pageInfo { hasNextPage endCursor }
      nodes {
        id number text state deleted added note
        comments { totalCount }
        notes { totalCount }
        related { __typename id kind title domain status }
        dependsOn { item { ${REF} } reason }
      }
    }
  }
}`;
const DASHBOARD_KNOWLEDGE = `query($id: ID!) {
  task(id: $id) {
    notes(first: 200) {
      totalCount refs { ${REF} }
      nodes {
        id title body bodyText refs { ${REF} }
        items { id number text state }
        brief { goal goalText contextText stepsText pitfallsText doneWhenText extraInfoText dependsOn { item { ${REF} } reason } }
      }
    }
    comments(first: 200, includeItems: true) {
      totalCount refs { ${REF} }
      nodes { id body bodyText refs { ${REF} } item { ${REF} } createdAt }
    }
  }
}`;

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

async function dashboard(taskId: string) {
  statements = [];
  const items = await server.ok(DASHBOARD_ITEMS, { id: taskId });
  const forItems = statements;
  statements = [];
  const knowledge = await server.ok(DASHBOARD_KNOWLEDGE, { id: taskId });
  const forKnowledge = statements;
  statements = [];
  const data = { task: { ...items.task, ...knowledge.task } };
  return { task: data.task, statements: [...forItems, ...forKnowledge], perQuery: [forItems.length, forKnowledge.length] };
}

/** The dashboard's read as `npm run bench` sends it: one query, the checklist with its notes and comments. */
async function benchDashboard(taskId: string) {
  statements = [];
  const data = await server.ok(DASHBOARD, { id: taskId });
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
    expect(large.task.progress).toMatchObject({ total: 199, done: 1, inProgress: 2 });
    expect(large.task.inProgress.map((i: { id: string }) => i.id)).toEqual([big.items[1].id, big.items[3].id]);
    expect(large.task.comments.nodes.every((c: { bodyText: string }) => !c.bodyText.includes('[[#'))).toBe(true);
    expect(large.task.notes.nodes.every((n: { brief: { stepsText: string } | null }) => !n.brief || !n.brief.stepsText.includes('[[#'))).toBe(true);
    const first = large.task.items.nodes[0];
    expect(first).toMatchObject({ id: big.items[0].id, number: 1, state: 'DONE' });
    expect(first.comments.totalCount).toBe(2);
    expect(first.notes.totalCount).toBe(1);
    expect(first.related.map((m: { id: string }) => m.id)).toHaveLength(2);
    expect(first.dependsOn[0]).toEqual({ item: { id: big.items[2].id, number: null, text: big.items[2].text, deleted: true }, reason: `needs [[#${big.items[2].id}]]` });

    const little = await dashboard(small.task.id);
    expect(little.task.items.totalCount).toBe(19);
    expect(little.task.notes.totalCount).toBe(5);
    expect(little.task.comments.totalCount).toBe(10);

    const report = `large: ${large.statements.length} statements, small: ${little.statements.length}\n` +
      shapes(large.statements).map(([sql, n]) => `${n} × ${sql}`).join('\n');
    expect(large.statements.length, report).toBe(little.statements.length);
    // A handful of statements, not one per row: at most one per kind of row the query shows.
    expect(large.perQuery[0], report).toBeLessThanOrEqual(6);
    expect(large.perQuery[1], report).toBeLessThanOrEqual(6);

    // The bench's dashboard read, in one query: at most 7 statements for either task, one per kind of row it shows:
    // the task, its live items, their links, their counts and dependencies, a page of notes with their items, a page
    // of comments, and the deleted items the answer cites (read by id, since a task's deleted items are not read whole).
    const bigRead = await benchDashboard(big.task.id);
    const smallRead = await benchDashboard(small.task.id);
    const benchReport = shapes(bigRead.statements).map(([sql, n]) => `${n} × ${sql}`).join('\n');
    expect(bigRead.task.items.nodes).toHaveLength(50);
    expect(bigRead.task.items.nodes[0].comments.totalCount).toBe(2);
    expect(bigRead.task.items.nodes[0].notes.totalCount).toBe(1);
    expect(bigRead.task.notes.totalCount).toBe(50);
    expect(bigRead.task.comments.totalCount).toBe(100);
    expect(bigRead.statements.length, benchReport).toBeLessThanOrEqual(7);
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
