/** Notes (memories), related links, domain listings, mustRead and domains, through GraphQL over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS, CREATE_TASK, EDIT_TASK, UPDATE_ITEM, CREATE_NOTE, EDIT_NOTE, ITEM_KNOWLEDGE, MEMORIES } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { databaseState, refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask } from '../fixtures/tasks.js';

// Every write gets its own second, so "newest" and "most recently updated" never tie.
let now = Date.parse('2030-01-01T00:00:00.000Z');
const clock = () => new Date((now += 1000));

let server: TestServer;
beforeAll(async () => { server = await startTestServer({ clock }); });
afterAll(async () => { await server?.close(); });

const ARCHIVE = `mutation($id: ID!) { archiveMemory(id: $id) { __typename id kind status updatedAt ... on Task { version state } ... on Note { body } } }`;
const MEMORY = `query($id: ID!) { memory(id: $id) { __typename id kind title domain status updatedAt ... on Note { body } } }`;
const MUST_READ = `query($domain: String!) { mustRead(domain: $domain) {
  id title domain state status updatedAt progress { done total pending inProgress dropped blocked failed } inProgress { id text state }
} }`;
const DOMAINS = `query($under: String) { domains(under: $under) { path openTasks tasks notes } }`;

async function note(title: string, domain: string, body = `${title} body.`) {
  return (await server.ok(CREATE_NOTE, { input: { title, body, domain } })).createNote;
}

async function listAll(domain: string, args: { kind?: string; status?: string } = {}, first = 200) {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = (await server.ok(MEMORIES, { domain, first, after, ...args })).memories;
    ids.push(...page.nodes.map((m: { id: string }) => m.id));
    if (!page.pageInfo.hasNextPage) return { ids, totalCount: page.totalCount as number };
    after = page.pageInfo.endCursor;
  }
}

describe('createNote and editNote', () => {
  it('creates a trimmed note in a domain; memory(id) reads it back', async () => {
    const domain = freshDomain('notes');
    const made = (await server.ok(CREATE_NOTE, { input: { title: '  Webhooks  ', body: ' Dedupe by event id. ', domain: ` ${domain}/billing ` } })).createNote;
    expect(made).toMatchObject({ kind: 'NOTE', title: 'Webhooks', body: 'Dedupe by event id.', domain: `${domain}/billing`, status: 'ACTIVE' });
    expect((await server.ok(MEMORY, { id: made.id })).memory).toMatchObject({ __typename: 'Note', id: made.id, title: 'Webhooks', body: 'Dedupe by event id.' });
  });

  it('an idempotencyKey retry returns the same note and records nothing', async () => {
    const domain = freshDomain('notes');
    const input = { title: 'Once', body: 'Only once.', domain, idempotencyKey: 'note-key-1' };
    const first = (await server.ok(CREATE_NOTE, { input })).createNote;
    const before = await databaseState(server);
    expect((await server.ok(CREATE_NOTE, { input })).createNote).toEqual(first);
    expect((await databaseState(server)).digest).toBe(before.digest);
    expect((await listAll(domain)).ids).toEqual([first.id]);
  });

  it('edits the title, body and domain; omitted fields stay', async () => {
    const domain = freshDomain('notes');
    const made = await note('Old title', domain, 'Old body.');
    const retitled = (await server.ok(EDIT_NOTE, { input: { id: made.id, title: ' New title ' } })).editNote;
    expect(retitled).toMatchObject({ id: made.id, title: 'New title', body: 'Old body.', domain });
    expect(Date.parse(retitled.updatedAt)).toBeGreaterThan(Date.parse(made.updatedAt));
    const moved = (await server.ok(EDIT_NOTE, { input: { id: made.id, body: 'New body.', domain: `${domain}/moved` } })).editNote;
    expect(moved).toMatchObject({ title: 'New title', body: 'New body.', domain: `${domain}/moved` });
    expect((await listAll(`${domain}/moved`)).ids).toEqual([made.id]);
  });

  it('refuses a blank title (EMPTY_TEXT), an edit of nothing or of a task (BAD_USER_INPUT, naming editTask), and an unknown id (NOT_FOUND)', async () => {
    const domain = freshDomain('notes');
    const made = await note('Note', domain);
    const { task } = await createTask(server, ['A'], { domain });
    await refusedAndNothingRecorded(server, 'EMPTY_TEXT', CREATE_NOTE, { input: { title: '   ', body: 'B', domain } });
    await refusedAndNothingRecorded(server, 'EMPTY_TEXT', EDIT_NOTE, { input: { id: made.id, title: ' ' } });
    await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', EDIT_NOTE, { input: { id: made.id } });
    const taskId = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', EDIT_NOTE, { input: { id: task.id, title: 'X' } });
    expect(taskId).toContain('editTask');
    await refusedAndNothingRecorded(server, 'NOT_FOUND', EDIT_NOTE, { input: { id: '99999999', title: 'X' } });
  });
});

describe('archiveMemory', () => {
  it('archives a note; archiving it again changes nothing', async () => {
    const domain = freshDomain('arch');
    const made = await note('To archive', domain);
    const archived = (await server.ok(ARCHIVE, { id: made.id })).archiveMemory;
    expect(archived).toMatchObject({ __typename: 'Note', id: made.id, status: 'ARCHIVED' });
    expect((await server.ok(MEMORY, { id: made.id })).memory.status).toBe('ARCHIVED');
    expect((await listAll(domain, { status: 'ARCHIVED' })).ids).toEqual([made.id]);
    expect((await listAll(domain, { status: 'ACTIVE' })).ids).toEqual([]);
    const before = await databaseState(server);
    expect((await server.ok(ARCHIVE, { id: made.id })).archiveMemory.status).toBe('ARCHIVED');
    expect((await databaseState(server)).digest).toBe(before.digest);
  });

  it('returns a closed task unchanged, and records nothing', async () => {
    const { task, items } = await createTask(server, ['Only'], { domain: freshDomain('arch') });
    const closed = (await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE' } })).updateItem.task;
    expect(closed.status).toBe('ARCHIVED');
    const before = await databaseState(server);
    const result = (await server.ok(ARCHIVE, { id: task.id })).archiveMemory;
    expect(result).toMatchObject({ __typename: 'Task', id: task.id, status: 'ARCHIVED', state: 'COMPLETED', version: closed.version });
    expect((await databaseState(server)).digest).toBe(before.digest);
  });

  it('refuses an open task (BAD_USER_INPUT, saying what to settle) and an unknown id (NOT_FOUND); nothing recorded', async () => {
    const { task } = await createTask(server, ['Still open'], { domain: freshDomain('arch') });
    const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', ARCHIVE, { id: task.id });
    expect(message).toMatch(/DONE|DROPPED/);
    await refusedAndNothingRecorded(server, 'NOT_FOUND', ARCHIVE, { id: '99999999' });
  });
});

describe('INVALID_DOMAIN', () => {
  const BAD = ['Acme/Checkout', 'acme//checkout', '/acme', 'acme/', 'acme checkout', '', '-acme', 'acme/_x', 'a/b/c/d/e/f/g/h/i', 'acmé'];

  it('refuses bad domains on every write that takes one; nothing recorded', async () => {
    const domain = freshDomain('dom');
    const made = await note('Note', domain);
    const { task } = await createTask(server, ['A'], { domain });
    for (const bad of BAD) {
      await refusedAndNothingRecorded(server, 'INVALID_DOMAIN', CREATE_NOTE, { input: { title: 'N', body: 'B', domain: bad } });
      await refusedAndNothingRecorded(server, 'INVALID_DOMAIN', EDIT_NOTE, { input: { id: made.id, domain: bad } });
      await refusedAndNothingRecorded(server, 'INVALID_DOMAIN', CREATE_TASK, { input: { title: 'T', goal: 'G', items: ['X'], domain: bad } });
      await refusedAndNothingRecorded(server, 'INVALID_DOMAIN', EDIT_TASK, { input: { id: task.id, domain: bad } });
    }
  });

  it('refuses bad domains on the reads that take one', async () => {
    for (const bad of BAD) {
      expect((await server.refused(MEMORIES, { domain: bad })).code).toBe('INVALID_DOMAIN');
      expect((await server.refused(MUST_READ, { domain: bad })).code).toBe('INVALID_DOMAIN');
      expect((await server.refused(DOMAINS, { under: bad })).code).toBe('INVALID_DOMAIN');
      expect((await server.refused(`query($d: String) { search(query: "x", domain: $d) { totalCount } }`, { d: bad })).code).toBe('INVALID_DOMAIN');
    }
  });

  it('offers the lower-case spelling when that is the only slip', async () => {
    const message = (await server.refused(CREATE_NOTE, { input: { title: 'N', body: 'B', domain: 'Acme/Checkout' } })).message;
    expect(message).toContain('"acme/checkout"');
  });
});

describe('Item.related', () => {
  it('links notes and tasks to one item through updateItem, oldest link first, each once', async () => {
    const domain = freshDomain('rel');
    const { task, items } = await createTask(server, ['Key by event id', 'Other'], { domain });
    const why = await note('Why event ids', domain);
    const how = await note('How replays work', domain);
    const elsewhere = await createTask(server, ['X'], { domain });

    const linked = (await server.ok(UPDATE_ITEM, { input: { id: items[0].id, related: [how.id] } })).updateItem;
    expect(linked.task.version).toBe(task.version + 1);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, related: [why.id, elsewhere.task.id, how.id] } });

    const item = (await server.ok(ITEM_KNOWLEDGE, { id: items[0].id })).item;
    expect(item.related.map((m: { id: string; __typename: string }) => [m.__typename, m.id])).toEqual([
      ['Note', how.id], ['Note', why.id], ['Task', elsewhere.task.id],
    ]);
    expect(item.related[0]).toMatchObject({ kind: 'NOTE', title: 'How replays work', body: 'How replays work body.' });
    expect((await server.ok(ITEM_KNOWLEDGE, { id: items[1].id })).item.related).toEqual([]);

    const history = await server.ok(`query($id: ID!) { task(id: $id) { history(first: 10) { nodes { action } } } }`, { id: task.id });
    expect(history.task.history.nodes.map((e: { action: string }) => e.action)).toEqual(['TASK_CREATED', 'ITEM_LINKED', 'ITEM_LINKED']);
  });

  it('refuses unknown memory ids with NOT_FOUND naming them; nothing linked', async () => {
    const domain = freshDomain('rel');
    const { items } = await createTask(server, ['A'], { domain });
    const real = await note('Real', domain);
    const message = await refusedAndNothingRecorded(server, 'NOT_FOUND', UPDATE_ITEM, { input: { id: items[0].id, related: [real.id, '99999999'] } });
    expect(message).toContain('99999999');
    await refusedAndNothingRecorded(server, 'NOT_FOUND', UPDATE_ITEM, { input: { id: items[0].id, related: ['not-an-id'] } });
    expect((await server.ok(ITEM_KNOWLEDGE, { id: items[0].id })).item.related).toEqual([]);
  });
});

describe('memories(domain, kind, status)', () => {
  it('covers the domain and its sub-domains, not a sibling that shares the prefix; newest first', async () => {
    const root = freshDomain('mem');
    const a = await note('In checkout', `${root}/checkout`);
    const { task: b } = await createTask(server, ['X'], { domain: `${root}/checkout/billing` });
    const c = await note('Deep', `${root}/checkout/billing/refunds`);
    await note('Sibling', `${root}/checkoutx`);
    await note('Parent only', root);

    const page = (await server.ok(MEMORIES, { domain: `${root}/checkout` })).memories;
    expect(page.totalCount).toBe(3);
    expect(page.nodes.map((m: { id: string }) => m.id)).toEqual([c.id, b.id, a.id]);
    expect(page.nodes.map((m: { kind: string }) => m.kind)).toEqual(['NOTE', 'TASK', 'NOTE']);
    expect((await listAll(root)).totalCount).toBe(5);
    expect((await listAll(`${root}/checkout/billing`)).ids).toEqual([c.id, b.id]);
  });

  it('filters by kind and by status, the status of a task following its items', async () => {
    const root = freshDomain('mem');
    const open = await createTask(server, ['Open item'], { domain: root });
    const closing = await createTask(server, ['Will be done'], { domain: root });
    const active = await note('Active', root);
    const archived = await note('Archived', root);
    await server.ok(ARCHIVE, { id: archived.id });
    await server.ok(UPDATE_ITEM, { input: { id: closing.items[0].id, state: 'DONE' } });

    expect((await listAll(root, { kind: 'TASK' })).ids).toEqual([closing.task.id, open.task.id]);
    expect((await listAll(root, { kind: 'NOTE' })).ids).toEqual([archived.id, active.id]);
    expect((await listAll(root, { status: 'ACTIVE' })).ids).toEqual([active.id, open.task.id]);
    expect((await listAll(root, { status: 'ARCHIVED' })).ids).toEqual([archived.id, closing.task.id]);
    expect((await listAll(root, { kind: 'TASK', status: 'ARCHIVED' })).ids).toEqual([closing.task.id]);

    // Reopened by a new item: ACTIVE again. Every item dropped: CANCELLED, so ARCHIVED.
    await server.ok(ADD_ITEMS, { input: { taskId: closing.task.id, items: ['One more'] } });
    await server.ok(UPDATE_ITEM, { input: { id: open.items[0].id, state: 'DROPPED', comment: 'Not needed.' } });
    expect((await listAll(root, { kind: 'TASK', status: 'ACTIVE' })).ids).toEqual([closing.task.id]);
    expect((await listAll(root, { kind: 'TASK', status: 'ARCHIVED' })).ids).toEqual([open.task.id]);
    const statuses = (await server.ok(MEMORIES, { domain: root, kind: 'TASK' })).memories.nodes.map((m: { id: string; status: string }) => [m.id, m.status]);
    expect(statuses).toEqual([[closing.task.id, 'ACTIVE'], [open.task.id, 'ARCHIVED']]);
  });

  it('pages with first/after through every memory once, newest first', async () => {
    const root = freshDomain('mem');
    const made: string[] = [];
    for (let i = 0; i < 11; i += 1) {
      if (i % 3 === 0) made.push((await createTask(server, [`Item ${i}`], { domain: `${root}/t${i}` })).task.id);
      else made.push((await note(`Note ${i}`, `${root}/n`)).id);
    }
    for (const first of [1, 3, 4, 11]) {
      const walked = await listAll(root, {}, first);
      expect(walked.totalCount).toBe(11);
      expect(walked.ids).toEqual([...made].reverse());
    }
    const firstPage = (await server.ok(MEMORIES, { domain: root, first: 4 })).memories;
    expect(firstPage).toMatchObject({ totalCount: 11, pageInfo: { hasNextPage: true } });
    expect(firstPage.nodes).toHaveLength(4);
    expect(firstPage.edges.at(-1).cursor).toBe(firstPage.pageInfo.endCursor);
    const lastPage = (await server.ok(MEMORIES, { domain: root, first: 200, after: firstPage.pageInfo.endCursor })).memories;
    expect(lastPage.nodes).toHaveLength(7);
    expect(lastPage.pageInfo.hasNextPage).toBe(false);
  });

  it('an empty domain lists nothing', async () => {
    const page = (await server.ok(MEMORIES, { domain: freshDomain('empty') })).memories;
    expect(page).toMatchObject({ totalCount: 0, nodes: [], pageInfo: { hasNextPage: false, endCursor: null } });
  });
});

describe('mustRead', () => {
  it('lists the open tasks of a scope, most recently updated first, with progress and inProgress', async () => {
    const root = freshDomain('must');
    const first = await createTask(server, ['F1', 'F2', 'F3'], { domain: `${root}/a` });
    const second = await createTask(server, ['S1'], { domain: `${root}/b/c` });
    const closed = await createTask(server, ['C1'], { domain: root });
    const third = await createTask(server, ['T1'], { domain: root });
    await createTask(server, ['Outside'], { domain: `${root}x` });
    await note('A note is not a task', root);
    await server.ok(UPDATE_ITEM, { input: { id: closed.items[0].id, state: 'DONE' } });
    // The first task changes last, so it comes first.
    await server.ok(UPDATE_ITEM, { input: { id: first.items[0].id, state: 'DONE' } });
    await server.ok(UPDATE_ITEM, { input: { id: first.items[1].id, state: 'IN_PROGRESS' } });

    const listed = (await server.ok(MUST_READ, { domain: root })).mustRead;
    expect(listed.map((t: { id: string }) => t.id)).toEqual([first.task.id, third.task.id, second.task.id]);
    expect(listed[0]).toMatchObject({
      state: 'OPEN', status: 'ACTIVE',
      progress: { done: 1, total: 3, pending: 1, inProgress: 1, dropped: 0, blocked: 0, failed: 0 },
      inProgress: [{ id: first.items[1].id, text: 'F2', state: 'IN_PROGRESS' }],
    });
    expect(listed[1]).toMatchObject({ progress: { done: 0, total: 1, pending: 1 }, inProgress: [] });

    expect((await server.ok(MUST_READ, { domain: `${root}/b` })).mustRead.map((t: { id: string }) => t.id)).toEqual([second.task.id]);

    // A comment counts as an update: the second task moves to the front.
    await server.ok(UPDATE_ITEM, { input: { id: second.items[0].id, comment: 'Still on it.' } });
    expect((await server.ok(MUST_READ, { domain: root })).mustRead.map((t: { id: string }) => t.id)).toEqual([second.task.id, first.task.id, third.task.id]);
  });
});

describe('domains(under)', () => {
  it('lists every domain holding memories and their parents, with counts over everything below', async () => {
    const root = freshDomain('tree');
    await note('N1', `${root}/checkout`);
    await note('N2', `${root}/checkout/billing`);
    const done = await createTask(server, ['Done soon'], { domain: `${root}/checkout/billing` });
    await createTask(server, ['Open'], { domain: `${root}/checkout/billing` });
    await createTask(server, ['Open too'], { domain: `${root}/search` });
    await note('Sibling', `${root}/checkoutx`);
    await server.ok(UPDATE_ITEM, { input: { id: done.items[0].id, state: 'DONE' } });

    const all = (await server.ok(DOMAINS, { under: root })).domains;
    expect(all).toEqual([
      { path: root, openTasks: 2, tasks: 3, notes: 3 },
      { path: `${root}/checkout`, openTasks: 1, tasks: 2, notes: 2 },
      { path: `${root}/checkout/billing`, openTasks: 1, tasks: 2, notes: 1 },
      { path: `${root}/checkoutx`, openTasks: 0, tasks: 0, notes: 1 },
      { path: `${root}/search`, openTasks: 1, tasks: 1, notes: 0 },
    ]);
    expect((await server.ok(DOMAINS, { under: `${root}/checkout` })).domains).toEqual(all.slice(1, 3));
    expect((await server.ok(DOMAINS, { under: `${root}/checkout/billing` })).domains).toEqual([all[2]]);
    expect((await server.ok(DOMAINS, { under: `${root}/nothing` })).domains).toEqual([]);

    const everything = (await server.ok(DOMAINS, {})).domains;
    expect(everything.filter((d: { path: string }) => d.path === root || d.path.startsWith(`${root}/`))).toEqual(all);
    const paths = everything.map((d: { path: string }) => d.path);
    expect(paths).toEqual([...paths].sort());
  });

  it('a parent with no memories of its own is listed above a deep domain', async () => {
    const root = freshDomain('tree');
    await note('Deep', `${root}/a/b/c`);
    expect((await server.ok(DOMAINS, { under: root })).domains).toEqual([
      { path: root, openTasks: 0, tasks: 0, notes: 1 },
      { path: `${root}/a`, openTasks: 0, tasks: 0, notes: 1 },
      { path: `${root}/a/b`, openTasks: 0, tasks: 0, notes: 1 },
      { path: `${root}/a/b/c`, openTasks: 0, tasks: 0, notes: 1 },
    ]);
  });
});

describe("sessions' plans", () => {
  it('are never memories: not listed, not searched, not counted, not archivable or linkable', async () => {
    const root = freshDomain('plan');
    const { task, items } = await createTask(server, ['Visible flamingo item'], { domain: root });
    const session = (await server.ok(`mutation { startSession { id } }`)).startSession.id;
    const written = (await server.ok(
      `mutation($todos: [TodoInput!]!) { writeTodos(todos: $todos) { plan { id } } }`,
      { todos: [{ content: 'Flamingo plan step', status: 'IN_PROGRESS' }, { content: 'Another flamingo step', status: 'PENDING' }] },
      { session },
    )).writeTodos;
    const planId = written.plan.id;

    const found = (await server.ok(`query { search(query: "flamingo") { totalCount nodes { id } } }`)).search;
    expect(found.nodes.map((m: { id: string }) => m.id)).toEqual([task.id]);
    expect(found.totalCount).toBe(1);
    expect((await listAll(root)).ids).toEqual([task.id]);
    expect((await server.ok(MUST_READ, { domain: root })).mustRead.map((t: { id: string }) => t.id)).toEqual([task.id]);
    const everything = (await server.ok(DOMAINS, {})).domains;
    expect(everything.every((d: { path: string | null }) => typeof d.path === 'string' && d.path.length > 0)).toBe(true);
    expect(everything.find((d: { path: string }) => d.path === root)).toEqual({ path: root, openTasks: 1, tasks: 1, notes: 0 });

    await refusedAndNothingRecorded(server, 'NOT_FOUND', ARCHIVE, { id: planId });
    await refusedAndNothingRecorded(server, 'NOT_FOUND', UPDATE_ITEM, { input: { id: items[0].id, related: [planId] } });
  });
});
