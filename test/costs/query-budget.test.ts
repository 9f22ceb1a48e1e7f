/**
 * Reads that could exhaust the server are refused, and the server keeps
 * answering others meanwhile: a query whose lists could hold too much is
 * refused before it runs (every list counted at the most it can hold), and
 * an answer that grows past the response budget while it is built is
 * stopped and answered TOO_LARGE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSchema } from '../../src/graphql/schema.js';
import { listsWithoutBound } from '../../src/graphql/execution/query-cost.js';
import { startTestServer, type TestServer } from '../harness.js';
import { CREATE_NOTE, ADD_ITEMS, UPDATE_ITEM } from '../fixtures/documents.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask, type Item } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const PROBE = '{ reminderSettings { enabled } }';

/** A task with `count` items (in calls of 100). */
async function bigTask(count: number, tag: string): Promise<{ taskId: string; items: Item[] }> {
  const labels = Array.from({ length: count }, (_, i) => `${tag} item ${i + 1}`);
  const { task, items } = await createTask(server, labels.slice(0, 100), { domain: `budget/${tag}` });
  for (let start = 100; start < count; start += 100) {
    items.push(...(await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: labels.slice(start, start + 100) } })).addItems.items);
  }
  return { taskId: task.id, items };
}

/** Runs `mutations` (GraphQL field strings) 50 to a request: the most aliases one request may use. */
async function inBatches(mutations: string[]): Promise<void> {
  for (let start = 0; start < mutations.length; start += 50) {
    const batch = mutations.slice(start, start + 50).map((m, i) => `m${i}: ${m}`).join('\n');
    await server.ok(`mutation { ${batch} }`);
  }
}

/** Sends `query` and, while it is being handled, a small probe: both are answered. */
async function withProbe(query: string, variables: Record<string, unknown>) {
  const [big, probe] = await Promise.all([server.gql(query, variables), server.gql(PROBE)]);
  expect(probe.errors).toBeUndefined();
  expect(probe.data).toEqual({ reminderSettings: { enabled: true } });
  return big;
}

describe('every list the schema has', () => {
  it('has a bound the cost estimate counts with (no list falls back to a guess)', async () => {
    expect(listsWithoutBound(await createSchema())).toEqual([]);
  });
});

describe('the limits the estimate counts on', () => {
  it('refuse a 101st helper session, a text citing 101 items, and a brief on 101 items or waiting for 21 (TOO_LARGE, nothing recorded)', async () => {
    const parent = (await server.ok('mutation { startSession { id } }')).startSession.id;
    const helpers = (count: number) => Array.from({ length: count }, () => `startSession(input: { parentId: "${parent}" }) { id }`);
    await inBatches(helpers(100));
    const helperMessage = await refusedAndNothingRecorded(server, 'TOO_LARGE', 'mutation($p: ID!) { startSession(input: { parentId: $p }) { id } }', { p: parent });
    expect(helperMessage).toContain('100');
    expect((await server.ok('query($id: ID!) { session(id: $id) { children { id } } }', { id: parent })).session.children).toHaveLength(100);

    const { taskId, items } = await bigTask(101, 'caps');
    const cite = (count: number) => items.slice(0, count).map((item) => `[[#${item.id}]]`).join(' ');
    await server.ok('mutation($id: ID!, $goal: String!) { editTask(input: { id: $id, goal: $goal }) { id } }', { id: taskId, goal: cite(100) });
    const citeMessage = await refusedAndNothingRecorded(server, 'TOO_LARGE', 'mutation($id: ID!, $goal: String!) { editTask(input: { id: $id, goal: $goal }) { id } }', { id: taskId, goal: cite(101) });
    expect(citeMessage).toContain('at most 100');

    const brief = { goal: 'g', context: 'c', steps: 's', pitfalls: 'p', doneWhen: 'd', dependsOn: [] as { item: string }[] };
    const note = (on: string[], dependsOn: { item: string }[]) => ({ input: { taskId, title: 'Brief', items: on, brief: { ...brief, dependsOn } } });
    const ADD = 'mutation($input: AddTaskNoteInput!) { addTaskNote(input: $input) { id } }';
    await refusedAndNothingRecorded(server, 'TOO_LARGE', ADD, note(items.map((item) => item.id), []));
    await refusedAndNothingRecorded(server, 'TOO_LARGE', ADD, note([items[0].id], items.slice(1, 22).map((item) => ({ item: item.id }))));
    await server.ok(ADD, note(items.slice(0, 100).map((item) => item.id), []));
    await server.ok(ADD, note([items[0].id], items.slice(1, 21).map((item) => ({ item: item.id }))));
  }, 120_000);
});

describe('links to one item', () => {
  it('refuse a 101st link with TOO_LARGE, saying what to do, and record nothing', async () => {
    const { items } = await createTask(server, ['Linked to many'], { domain: 'budget/links' });
    const notes: string[] = [];
    for (let i = 0; i < 101; i += 1) notes.push((await server.ok(CREATE_NOTE, { input: { title: `N${i}`, body: 'b', domain: 'budget/links' } })).createNote.id);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, related: notes.slice(0, 100) } });
    // Relinking what is linked records nothing and is not refused.
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, related: notes.slice(0, 3) } });
    const message = await refusedAndNothingRecorded(server, 'TOO_LARGE', UPDATE_ITEM, { input: { id: items[0].id, related: [notes[100]] } });
    expect(message).toContain('100');
    expect(message).toContain('link that');
  });
});

describe('six aliases of a long history, each row holding 500 items', () => {
  it('are refused before they run (TOO_LARGE, saying what to ask for), while another client is answered', async () => {
    const { taskId, items } = await bigTask(500, 'history');
    // 200 recorded changes, each holding the 500-item list after it.
    await inBatches(Array.from({ length: 200 }, (_, i) =>
      `updateItem(input: { id: "${items[i].id}", state: ${i % 2 ? 'DONE' : 'IN_PROGRESS'} }) { id }`));
    const alias = (name: string) => `${name}: task(id: $id) { history(first: 200) { nodes { items { id text state } } } }`;
    const query = `query($id: ID!) { ${['a', 'b', 'c', 'd', 'e', 'f'].map(alias).join(' ')} }`;
    const answer = await withProbe(query, { id: taskId });
    expect(answer.data ?? null).toBeNull();
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors![0].extensions?.code).toBe('TOO_LARGE');
    expect(answer.errors![0].message).toContain('could resolve about');
    expect(answer.errors![0].message).toContain('smaller pages (first)');

    // One alias, a page of 50, is within the limit and answers every row whole.
    const page = await server.ok(`query($id: ID!) { task(id: $id) { history(first: 50) { totalCount nodes { items { id } } } } }`, { id: taskId });
    expect(page.task.history.totalCount).toBe(205);
    expect(page.task.history.nodes.at(-1).items).toHaveLength(500);
  }, 120_000);
});

describe('items each linked to 100 notes', () => {
  it('are refused before anything is read when every body of every link could pass what one query may plan, while another client is answered', async () => {
    const { taskId, items } = await bigTask(200, 'related');
    const body = 'Why this matters. '.repeat(120); // about 2,000 characters
    const notes: string[] = [];
    for (let start = 0; start < 100; start += 50) {
      const batch = Array.from({ length: 50 }, (_, i) => `n${i}: createNote(input: { title: "Reason ${start + i}", body: "${body}", domain: "budget/related" }) { id }`);
      const made = await server.ok(`mutation { ${batch.join('\n')} }`);
      notes.push(...Object.values(made).map((note: any) => note.id));
    }
    const related = JSON.stringify(notes);
    await inBatches(items.map((item) => `updateItem(input: { id: "${item.id}", related: ${related} }) { id }`));

    const query = 'query($id: ID!) { task(id: $id) { items(first: 200) { nodes { id related { id ... on Note { body } } } } } }';
    const answer = await withProbe(query, { id: taskId });
    expect(answer.data ?? null).toBeNull();
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors![0].extensions?.code).toBe('TOO_LARGE');
    expect(answer.errors![0].message).toContain('over the limit of 32 MB one query may plan');
    expect(answer.errors![0].message).toContain('related(first: 10)');

    // Without the bodies, the same links are answered whole.
    const light = await server.ok('query($id: ID!) { task(id: $id) { items(first: 200) { nodes { related { id } } } } }', { id: taskId });
    expect(light.task.items.nodes).toHaveLength(200);
    expect(light.task.items.nodes.every((item: { related: unknown[] }) => item.related.length === 100)).toBe(true);
  }, 120_000);
});
