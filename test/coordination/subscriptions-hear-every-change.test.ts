/** GraphQL subscriptions over WebSocket (graphql-ws): every committed change reaches the subscriptions that watch it, on this server or another. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { startBuiltServer } from '../built-server.js';
import { CREATE_TASK, START_SESSION, WRITE_TODOS, UPDATE_ITEM, COMMENT_ON_TASK } from '../fixtures/documents.js';
import { DOMAIN_CHANGED, SESSION_CHANGED, SETTINGS_CHANGED, TASK_CHANGED, subscribe, whenHeld, type Live } from '../fixtures/live.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
const CREATE_NOTE_TITLED = 'mutation($domain: String!, $title: String!) { createNote(input: { title: $title, body: "b", domain: $domain }) { id } }';

let server: TestServer;
const open: Live[] = [];
const held = (live: Live) => (open.push(live), live);
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => {
  await Promise.all(open.map((live) => live.close()));
  await server?.close();
});

async function newTask(domain = 'live/tasks') {
  const made = await server.ok(CREATE_TASK, { input: { title: 'Watch me', goal: 'g', domain, items: ['First step', 'Second step'] } });
  return { id: made.createTask.task.id as string, items: made.createTask.items as { id: string }[] };
}

describe('taskChanged', () => {
  it('sends each change to the task as it now stands, and nothing about other tasks', async () => {
    const task = await newTask();
    const other = await newTask();
    const live = held(subscribe(server.url, TASK_CHANGED, { id: task.id }));
    await whenHeld(live, () => server.ok(COMMENT_ON_TASK, { taskId: task.id, body: 'poke' }));

    await server.ok(UPDATE_ITEM, { input: { id: other.items[0].id, state: 'DONE', comment: 'elsewhere' } });
    await server.ok(UPDATE_ITEM, { input: { id: task.items[1].id, state: 'DONE', comment: 'checked' } });
    const event = await live.next();
    expect(event.taskChanged).toMatchObject({ taskId: task.id, action: 'ITEM_STATE', madeBy: null });
    expect(event.taskChanged.task.items.nodes.map((item: { state: string }) => item.state)).toEqual(['PENDING', 'DONE']);
  });

  it('names the agent session that made the change', async () => {
    const task = await newTask();
    const session = (await server.ok(START_SESSION, {})).startSession.id;
    const live = held(subscribe(server.url, TASK_CHANGED, { id: task.id }));
    await whenHeld(live, () => server.ok(COMMENT_ON_TASK, { taskId: task.id, body: 'poke' }));
    await server.ok(UPDATE_ITEM, { input: { id: task.items[0].id, text: 'Renamed step' } }, { session });
    const event = await live.until((value) => value.taskChanged.action === 'ITEM_RENAMED');
    expect(event.taskChanged.madeBy).toBe(session);
    expect(event.taskChanged.task.items.nodes[0].text).toBe('Renamed step');
  });
});

describe('domainChanged', () => {
  it('sends changes in the domain and below, not in others', async () => {
    const live = held(subscribe(server.url, DOMAIN_CHANGED, { under: 'watched' }));
    await whenHeld(live, () => server.ok(CREATE_NOTE_TITLED, { domain: 'watched', title: 'poke' }));
    await server.ok(CREATE_NOTE_TITLED, { domain: 'watchedx/notes', title: 'Not in scope' });
    const inside = await server.ok(CREATE_NOTE_TITLED, { domain: 'watched/deeper', title: 'In scope' });
    const event = await live.next();
    expect(event.domainChanged).toEqual({
      memoryId: inside.createNote.id, kind: 'NOTE', domain: 'watched/deeper', action: 'NOTE_CREATED', memory: { id: inside.createNote.id, title: 'In scope' },
    });
  });
});

describe('sessionChanged', () => {
  it("sends a session's plan updates and its helpers', with the status line as it now stands", async () => {
    const parent = (await server.ok(START_SESSION, {})).startSession.id;
    const live = held(subscribe(server.url, SESSION_CHANGED, { id: parent }));
    await whenHeld(live, () => server.ok(WRITE_TODOS, { todos: [{ content: 'Warm up', status: 'PENDING' }] }, { session: parent }));

    await server.ok(WRITE_TODOS, { todos: [{ content: 'Run the tests', status: 'IN_PROGRESS' }, { content: 'Fix the build', status: 'PENDING' }] }, { session: parent });
    const written = await live.until((value) => value.sessionChanged.action === 'PLAN_WRITTEN');
    expect(written.sessionChanged).toMatchObject({ sessionId: parent, parentId: null, madeBy: parent });
    expect(written.sessionChanged.session.statusLine).toBe('0/2 · Run the tests');

    const helper = (await server.ok(START_SESSION, { input: { parentId: parent } })).startSession.id;
    await server.ok(WRITE_TODOS, { todos: [{ content: 'Read the logs', status: 'PENDING' }] }, { session: helper });
    const helped = await live.until((value) => value.sessionChanged.sessionId === helper && value.sessionChanged.action === 'PLAN_WRITTEN');
    expect(helped.sessionChanged.parentId).toBe(parent);
    expect(helped.sessionChanged.session.plan.items.nodes).toEqual([{ text: 'Read the logs', state: 'PENDING' }]);
  });
});

describe('reminderSettingsChanged', () => {
  it('sends the settings each time they change', async () => {
    const live = held(subscribe(server.url, SETTINGS_CHANGED));
    await whenHeld(live, () => server.ok('mutation { updateReminderSettings(enabled: true) { enabled } }'));
    await server.ok('mutation { updateReminderSettings(enabled: false, intervalMinutes: 45) { enabled } }');
    expect((await live.next()).reminderSettingsChanged).toEqual({ enabled: false, intervalMinutes: 45 });
  });
});

describe('over WebSocket', () => {
  it('runs only subscriptions: a mutation is refused there and records nothing', async () => {
    const task = await newTask();
    const live = held(subscribe(server.url, 'mutation($id: ID!) { deleteItem(id: $id) { id } }', { id: task.items[0].id }));
    await expect(live.next()).rejects.toThrow(/Only subscriptions run over WebSocket\. Send mutation operations to POST \/graphql/);
    const after = await server.ok('query($id: ID!) { task(id: $id) { items(first: 10) { totalCount } } }', { id: task.id });
    expect(after.task.items.totalCount).toBe(2);
  });

  it('holds a subscription to the same limits as POST /graphql: a page over 200 or an answer too costly is TOO_LARGE', async () => {
    const task = await newTask();
    const big = held(subscribe(server.url, 'subscription($id: ID!) { taskChanged(id: $id) { task { items(first: 500) { totalCount } } } }', { id: task.id }));
    await expect(big.next()).rejects.toThrow(/first/);
    const costly = held(subscribe(server.url, `subscription($id: ID!) { taskChanged(id: $id) { task {
      history(first: 200) { nodes { items { id text state } } } h2: history(first: 200) { nodes { items { id text state } } }
      h3: history(first: 200) { nodes { items { id text state } } } h4: history(first: 200) { nodes { items { id text state } } }
      h5: history(first: 200) { nodes { items { id text state } } } h6: history(first: 200) { nodes { items { id text state } } }
      h7: history(first: 200) { nodes { items { id text state } } } h8: history(first: 200) { nodes { items { id text state } } }
      h9: history(first: 200) { nodes { items { id text state } } } h10: history(first: 200) { nodes { items { id text state } } }
    } } }`, { id: task.id }));
    await expect(costly.next()).rejects.toThrow(/could resolve about/);
  });
});

describe(onPostgres ? 'across server processes (PostgreSQL: LISTEN/NOTIFY)' : 'one process (SQLite)', () => {
  it('a change made through another server process on the database reaches a subscription held here', async () => {
    // On PostgreSQL the change goes through a second, built server process; SQLite serves from one process, so through this one.
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-live-'));
    const other = onPostgres ? await startBuiltServer(server.databaseUrl, cwd) : null;
    try {
      const send = (query: string, variables: Record<string, unknown>) =>
        other ? other.graphql(query, variables).then((result) => { expect(result.errors).toBeUndefined(); return result.data; }) : server.ok(query, variables);
      const task = await newTask();
      const live = held(subscribe(server.url, TASK_CHANGED, { id: task.id }));
      await whenHeld(live, () => send(COMMENT_ON_TASK, { taskId: task.id, body: 'poke' }));
      await send(UPDATE_ITEM, { input: { id: task.items[0].id, state: 'IN_PROGRESS' } });
      const event = await live.until((value) => value.taskChanged.action === 'ITEM_STATE');
      expect(event.taskChanged.task.items.nodes[0].state).toBe('IN_PROGRESS');
    } finally {
      other?.process.kill('SIGTERM');
      await other?.exited();
    }
  });
});

describe('with TASKBASE_TOKENS set', () => {
  let guarded: TestServer;
  beforeAll(async () => { guarded = await startTestServer({ env: { TASKBASE_TOKENS: 'writer-secret,reader-secret:read' } }); });
  afterAll(async () => { await guarded?.close(); });
  const write = { headers: { authorization: 'Bearer writer-secret' } };

  it('closes a connection without a known token with 4401, saying what to send', async () => {
    const none = held(subscribe(guarded.url, SETTINGS_CHANGED));
    expect(await none.closed).toEqual({ code: 4401, reason: expect.stringContaining('connectionParams {authorization: "Bearer <token>"}') });
    const unknown = held(subscribe(guarded.url, SETTINGS_CHANGED, {}, { authorization: 'Bearer guess' }));
    expect((await unknown.closed).code).toBe(4401);
  });

  it('lets a read-only token listen to changes made with a write token', async () => {
    const live = held(subscribe(guarded.url, SETTINGS_CHANGED, {}, { authorization: 'Bearer reader-secret' }));
    const poke = async () => expect((await guarded.gql('mutation { updateReminderSettings(enabled: true) { enabled } }', {}, write)).errors).toBeUndefined();
    await whenHeld(live, poke);
    await guarded.gql('mutation { updateReminderSettings(intervalMinutes: 50) { enabled } }', {}, write);
    expect((await live.next()).reminderSettingsChanged.intervalMinutes).toBe(50);
  });
});
