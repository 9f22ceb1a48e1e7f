import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { connectMcp, textOf, type McpTestClient } from '../fixtures/mcp.js';
import { documentOf } from '../fixtures/recorded-documents.js';
import { COMMENT, ITEM, TASK_HEAD, TASK_ITEMS, TASK_OPENED } from '../../web/src/dashboard-documents.mjs';
import {
  ITEM_KNOWLEDGE, MEMORIES, READ_HISTORY, READ_SESSION, SEARCH, TASK_COMMENTS, TASK_NOTES,
} from '../fixtures/documents.js';

/**
 * Every read the dashboard and the agents' tools make, answered over seeded
 * data and compared with the answers recorded before: a read reworked for
 * speed must answer the same bytes. The same fixtures hold on SQLite and on
 * PostgreSQL (TEST_POSTGRES_URL), so the two databases answer alike too.
 *
 * RECORD_ANSWERS=1 writes test/fixtures/recorded-answers/*.json from this
 * run instead of comparing; commit them only after reading the diff.
 *
 * What is normalized, and why (nothing else is):
 * - timestamps (ISO strings, in JSON and in tool text), and a lease's
 *   seconds left beside its instant ("for 598 s (until …)"): the clock below steps
 *   one second per unit of work so every order is fixed, but claims are timed
 *   by the database's own clock and a retried transaction reads the clock
 *   again, so the values themselves are not the same from run to run;
 * - session ids: random UUIDs, replaced by <session-N> in order of first
 *   appearance in the recording;
 * - cursors: base64url JSON of a row's sort keys, which for sessions hold the
 *   session's id and a timestamp; such a cursor is recorded decoded, as
 *   <cursor [...]> with the two above normalized inside, so what it keys on
 *   is still compared (every other cursor is compared as sent).
 * Each answer is compared as JSON text with its keys in the order the server
 * sent them, not as the HTTP body's bytes: how Apollo spaces the JSON is the
 * HTTP layer's business, not the read's.
 */
const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/recorded-answers');
const RECORD = process.env.RECORD_ANSWERS === '1';

let server: TestServer;
const clients: McpTestClient[] = [];
const answers = { graphql: {} as Record<string, unknown>, mcp: {} as Record<string, unknown> };

const sessionIds = new Map<string, string>();
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** A lease's seconds left, counted from the server's clock as the answer is written: they move with the clock, as the instant does. */
const LEASE_LEFT = /for \d+ s \(until /g;
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g;

function normalizedText(text: string): string {
  return text
    .replace(LEASE_LEFT, 'for <seconds> s (until ')
    .replace(ISO_TIME, '<time>')
    .replace(UUID, (id) => {
      if (!sessionIds.has(id)) sessionIds.set(id, `<session-${sessionIds.size + 1}>`);
      return sessionIds.get(id)!;
    });
}

/** A cursor is base64url JSON of the row's sort keys: one that holds a session id or a time is recorded decoded and normalized, so its keys are still compared; any other, as sent. */
function cursorOf(value: string): string | null {
  if (value.length < 8 || !/^[A-Za-z0-9_-]+={0,2}$/.test(value)) return null;
  try {
    const decoded = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (decoded === null || typeof decoded !== 'object') return null;
    const keys = JSON.stringify(decoded);
    return normalizedText(keys) === keys ? null : `<cursor ${normalizedText(keys)}>`;
  } catch {
    return null;
  }
}

function normalized(value: unknown): unknown {
  if (typeof value === 'string') return cursorOf(value) ?? normalizedText(value);
  if (Array.isArray(value)) return value.map(normalized);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, normalized(field)]));
  return value;
}

async function read(name: string, query: string, variables: Record<string, unknown> = {}, session?: string) {
  const result = await server.gql(query, variables, { session });
  if (result.errors?.length) throw new Error(`${name}: ${JSON.stringify(result.errors)}`);
  answers.graphql[name] = normalized(result.data);
  return result.data as any;
}

async function tool(mcp: McpTestClient, name: string, tool: string, args: Record<string, unknown> = {}) {
  const result = await mcp.call(tool, args);
  // The text answer whole, which structured output carries beside the data, is recorded once, as the text.
  const { answer, ...structured } = (result.structuredContent ?? {}) as { answer?: string };
  if (result.structuredContent) expect(answer).toBe(textOf(result));
  answers.mcp[name] = normalized({ isError: result.isError ?? false, text: textOf(result), structuredContent: result.structuredContent ? structured : null });
  if (result.isError) throw new Error(`${name}: ${textOf(result)}`);
  return result.structuredContent as any;
}

async function ok(query: string, variables?: Record<string, unknown>, session?: string) {
  return server.ok(query, variables, { session });
}

const CREATE_TASK_IDS = `mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } items { id } } }`;
const EDIT_TASK_ID = `mutation($input: EditTaskInput!) { editTask(input: $input) { id } }`;
const UPDATE_ITEM_ID = `mutation($input: UpdateItemInput!) { updateItem(input: $input) { id } }`;
const ADD_NOTE = `mutation($input: AddTaskNoteInput!) { addTaskNote(input: $input) { id } }`;
const ADD_COMMENT_ID = `mutation($input: AddCommentInput!) { addComment(input: $input) { id } }`;
const CREATE_NOTE_ID = `mutation($input: CreateNoteInput!) { createNote(input: $input) { id } }`;
const START_SESSION_ID = `mutation($input: StartSessionInput) { startSession(input: $input) { id } }`;
const WRITE_TODOS_IDS = `mutation($todos: [TodoInput!]!) { writeTodos(todos: $todos) { plan { id items(first: 200) { nodes { id } } } } }`;
const SET_PLAN_ID = `mutation($steps: [String!]!) { setPlan(steps: $steps) { plan { id } } }`;
const UPDATE_STEP_MESSAGE = `mutation($input: UpdateStepInput!) { updateStep(input: $input) { message } }`;
const CLAIM = `mutation($input: ClaimItemInput!) { claimItem(input: $input) { id } }`;
const DELETE_ITEM_ID = `mutation($id: ID!) { deleteItem(id: $id) { id } }`;
const MOVE_ITEM_ID = `mutation($input: MoveItemInput!) { moveItem(input: $input) { id } }`;
const FINISH = `mutation { finishSession { id } }`;
const MUST_READ = `query($domain: String!) { mustRead(domain: $domain) {
  id title goal goalText domain state status version updatedAt
  progress { done total pending inProgress dropped blocked failed }
  inProgress { id number text state note }
} }`;
const RECENT_SESSIONS = `query($first: Int) { recentSessions(first: $first) { id turn finishedAt statusLine domains parent { id } children { id } } }`;
const DOMAINS = `query($under: String) { domains(under: $under) { path openTasks tasks notes } }`;
const PLAN = `query($id: ID!) { session(id: $id) { id plan {
  id title domain version state goal progress { done total pending inProgress dropped blocked failed }
  items(first: 200, includeDeleted: true) { totalCount nodes { id number text state note added deleted } }
  history(first: 50) { totalCount nodes { action sessionId items { id text state } changes { itemId kind text from to } } }
} } }`;

/** The seeded data: ids of what the reads name. */
const seeded = {} as {
  billing: string; billingItems: string[]; checkout: string; checkoutItems: string[]; shipping: string; closed: string;
  notes: string[]; sessions: string[]; helper: string; historyCursor: string;
};

async function seed() {
  // Memories in nested domains.
  const noteIds = [];
  for (const [title, body, domain] of [
    ['Provider retries for 72h', 'Stripe retries a webhook for three days; events arrive late and twice.', 'acme/checkout/billing'],
    ['Refund policy', 'Refunds over 500 EUR need a second approver.', 'acme/checkout'],
    ['Carrier cut-off', 'Parcels booked after 15:00 ship the next day.', 'acme/shipping'],
    ['Company glossary', 'A ledger entry is never edited, only reversed.', 'acme'],
  ]) noteIds.push((await ok(CREATE_NOTE_ID, { input: { title, body, domain } })).createNote.id);
  seeded.notes = noteIds;

  const billing = (await ok(CREATE_TASK_IDS, { input: {
    title: 'Move billing webhooks to the idempotent handler', goal: 'Every billing webhook is deduplicated by event id.', domain: 'acme/checkout/billing',
    items: ['Key charge.succeeded by event id', 'Persist each event id', 'Replay the queue after a restart', 'Cover refunds and disputes', 'Remove the charge-id lookup', 'Write the runbook'],
  } })).createTask;
  seeded.billing = billing.task.id;
  const b = billing.items.map((item: { id: string }) => item.id);
  seeded.billingItems = b;
  await ok(EDIT_TASK_ID, { input: { id: seeded.billing, goal: `Every billing webhook is deduplicated by event id: [[#${b[0]}]] first, then [[#${b[2]}]].` } });

  const checkout = (await ok(CREATE_TASK_IDS, { input: {
    title: 'Speed up the checkout page', goal: 'The page paints in under a second on 3G.', domain: 'acme/checkout',
    itemsText: 'Measure the waterfall\nInline the critical CSS\nDefer the chat widget',
  } })).createTask;
  seeded.checkout = checkout.task.id;
  seeded.checkoutItems = checkout.items.map((item: { id: string }) => item.id);
  const shipping = (await ok(CREATE_TASK_IDS, { input: { title: 'Book carriers before the cut-off', goal: 'No parcel misses its truck.', domain: 'acme/shipping', items: ['Read the carrier API', 'Schedule the booking job'] } })).createTask;
  seeded.shipping = shipping.task.id;
  const closed = (await ok(CREATE_TASK_IDS, { input: { title: 'Rotate the webhook secret', goal: 'The old secret is revoked.', domain: 'acme/checkout/billing', items: ['Issue a new secret', 'Revoke the old one'] } })).createTask;
  seeded.closed = closed.task.id;
  for (const item of closed.items) await ok(UPDATE_ITEM_ID, { input: { id: item.id, state: 'DONE', comment: 'Done in the dashboard.' } });

  // Items worked: states, notes, links to memories.
  await ok(UPDATE_ITEM_ID, { input: { id: b[0], state: 'DONE', comment: `Handler keys off the event id; see [[#${b[1]}]].`, related: [noteIds[0]] } });
  await ok(UPDATE_ITEM_ID, { input: { id: b[1], state: 'IN_PROGRESS', related: [noteIds[0], seeded.checkout] } });
  await ok(UPDATE_ITEM_ID, { input: { id: b[3], state: 'BLOCKED', comment: 'Waiting for the disputes API.' } });
  await ok(UPDATE_ITEM_ID, { input: { id: b[4], text: 'Drop the charge-id lookup' } });
  await ok(UPDATE_ITEM_ID, { input: { id: seeded.checkoutItems[0], state: 'DONE', comment: 'Fonts block for 800 ms.' } });
  await ok(UPDATE_ITEM_ID, { input: { id: seeded.checkoutItems[1], state: 'IN_PROGRESS' } });

  // Briefs with dependencies, a whole-task note, comments citing items.
  await ok(ADD_NOTE, { input: { taskId: seeded.billing, title: 'Replay brief', items: [b[2]], brief: {
    goal: `Replays are idempotent; builds on [[#${b[0]}]].`, context: 'The queue lives in the webhook worker.', steps: `Persist each event id ([[#${b[1]}]]) before acting on it.`,
    pitfalls: 'A restart mid-replay must not double-book.', doneWhen: 'The restart test passes.', extraInfo: 'Staging has a replay button.',
    dependsOn: [{ item: b[0], reason: 'the event-id handler' }, { item: b[1] }],
  } } });
  await ok(ADD_NOTE, { input: { taskId: seeded.billing, title: 'Refunds brief', items: [b[3], b[4]], brief: {
    goal: 'Refunds and disputes go through the same handler.', context: 'Disputes arrive as charge.dispute.created.', steps: 'Map both events.',
    pitfalls: `Do not reuse [[#${b[4]}]]'s lookup.`, doneWhen: 'Both have tests.', dependsOn: [{ item: b[2], reason: 'replays' }],
  } } });
  await ok(ADD_NOTE, { input: { taskId: seeded.billing, title: 'Why this task', body: `The charge-id lookup double-booked twice in March; [[#${b[0]}]] fixes the cause.` } });
  await ok(ADD_COMMENT_ID, { input: { taskId: seeded.billing, body: `Started with [[#${b[0]}]]; [[#${b[2]}]] next.` } });
  await ok(ADD_COMMENT_ID, { input: { taskId: seeded.billing, item: b[1], body: 'The table needs a unique index.' } });
  await ok(ADD_COMMENT_ID, { input: { taskId: seeded.billing, item: b[3], body: `Blocked until [[#${b[2]}]] lands.` } });
  await ok(ADD_COMMENT_ID, { input: { taskId: seeded.checkout, body: 'Lighthouse says 2.4 s today.' } });

  // A delete and a move, for history and includeDeleted.
  await ok(DELETE_ITEM_ID, { id: b[5] });
  await ok(MOVE_ITEM_ID, { input: { id: b[4], after: b[2] } });

  // Sessions of every preset, a helper, plans with history, claims; one finished.
  const whole = (await ok(START_SESSION_ID, { input: { preset: 'WHOLE_LIST' } })).startSession.id;
  const steps = (await ok(START_SESSION_ID, { input: { preset: 'STEP_OPS' } })).startSession.id;
  const checklist = (await ok(START_SESSION_ID, { input: { preset: 'PLAN_AND_FINISH' } })).startSession.id;
  const helper = (await ok(START_SESSION_ID, { input: { parentId: whole } })).startSession.id;
  const finished = (await ok(START_SESSION_ID, { input: { preset: 'WHOLE_LIST' } })).startSession.id;
  seeded.sessions = [whole, steps, checklist, finished];
  seeded.helper = helper;
  await ok(WRITE_TODOS_IDS, { todos: [{ content: 'Read the handler', status: 'DONE' }, { content: 'Write the replay test', status: 'IN_PROGRESS' }, { content: 'Open the pull request', status: 'PENDING' }] }, whole);
  await ok(WRITE_TODOS_IDS, { todos: [{ content: 'Read the handler', status: 'DONE' }, { content: 'Write the replay test', status: 'DONE' }, { content: 'Run the suite', status: 'IN_PROGRESS' }, { content: 'Open the pull request', status: 'PENDING' }] }, whole);
  await ok(WRITE_TODOS_IDS, { todos: [{ content: 'Check the index', status: 'IN_PROGRESS' }] }, helper);
  await ok(SET_PLAN_ID, { steps: ['Profile the page', 'Inline the CSS', 'Profile again'] }, steps);
  await ok(UPDATE_STEP_MESSAGE, { input: { step: 1, state: 'DONE', note: 'Fonts block for 800 ms.' } }, steps);
  await ok(UPDATE_STEP_MESSAGE, { input: { step: 2, state: 'FAILED', note: 'The build drops the inline block.' } }, steps);
  await ok(SET_PLAN_ID, { steps: ['Book the carrier', 'Print the labels'] }, checklist);
  await ok(UPDATE_STEP_MESSAGE, { input: { step: 2, state: 'BLOCKED', note: 'The printer is offline.' } }, checklist);
  await ok(WRITE_TODOS_IDS, { todos: [{ content: 'Say hello', status: 'DONE' }] }, finished);
  await ok(FINISH, {}, finished);
  await ok(CLAIM, { input: { id: b[2], ttlSeconds: 600 } }, steps);
  // A read with the session names its domain (what recentSessions and reminders show).
  await ok(MUST_READ, { domain: 'acme/checkout' }, whole);
}

beforeAll(async () => {
  // One second per unit of work from a fixed instant: every "newest first" order is fixed.
  let now = Date.parse('2026-03-01T09:00:00.000Z');
  server = await startTestServer({ clock: () => new Date((now += 1000)) });
  await seed();
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await server?.close();
});

/** Compares (or, recording, writes) one group's answers. */
function compare(group: keyof typeof answers) {
  const file = path.join(FIXTURES, `${group}.json`);
  const actual = answers[group];
  if (RECORD) {
    fs.mkdirSync(FIXTURES, { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
    return;
  }
  const recorded = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  expect(Object.keys(actual), 'the reads made').toEqual(Object.keys(recorded));
  for (const name of Object.keys(recorded)) expect.soft(JSON.stringify(actual[name], null, 2), name).toBe(JSON.stringify(recorded[name], null, 2));
}

describe('recorded answers', () => {
  it("the dashboard's reads answer as recorded", async () => {
    const taskData = 'web/src/task-data.ts';
    const { billing, billingItems: b } = seeded;
    await read('access', '{ access }');
    await read('task head', TASK_HEAD, { id: billing });
    await read('task head (checkout)', TASK_HEAD, { id: seeded.checkout });
    await read('task head (closed)', TASK_HEAD, { id: seeded.closed });
    await read('task items', TASK_ITEMS, { id: billing, deleted: false, first: 100 });
    await read('task items with deleted', TASK_ITEMS, { id: billing, deleted: true, first: 100 });
    const first = await read('task items, first page of 2', TASK_ITEMS, { id: billing, deleted: false, first: 2 });
    await read('task items, second page of 2', TASK_ITEMS, { id: billing, deleted: false, first: 2, after: first.task.items.pageInfo.endCursor });
    await read('recent events', documentOf(taskData, 'RECENT_EVENTS'), { id: billing, first: 5 });
    // The rows a live change touched, as the task view asks for them again.
            await read('touched rows', `{ ${[b[1], b[3]].map((id, index) => `i${index}: item(id: "${id}") { ${ITEM} comments(first: 200) { nodes { ${COMMENT} } } }`).join(' ')} }`);
    await read('task comments again', `query($id: ID!) { task(id: $id) { comments(first: 200, includeItems: true) { totalCount nodes { ${COMMENT} } } } }`, { id: billing });

    const task = 'web/src/views/task/documents.ts';
    await read('current goal', documentOf(task, 'CURRENT_GOAL'), { id: billing });
    await read('current item', documentOf(task, 'CURRENT_ITEM'), { id: b[1] });
    await read('search notes', documentOf(task, 'SEARCH_NOTES'), { query: 'refunds' });

    const history = 'web/src/views/history.tsx';
    const events = await read('history', documentOf(history, 'HISTORY'), { id: billing, first: 30 });
    await read('history, first page of 3', documentOf(history, 'HISTORY'), { id: billing, first: 3 });
    seeded.historyCursor = events.task.history.edges[3].cursor;
    await read('history snapshot', documentOf(history, 'SNAPSHOT'), { id: billing, after: seeded.historyCursor });

    const domains = 'web/src/views/domains.tsx';
    await read('domains', documentOf(domains, 'DOMAINS'));
    // A domain's task table reads most recently updated first (its default order).
    const table = 'web/src/views/task-table.tsx';
    for (const domain of ['acme', 'acme/checkout', 'acme/checkout/billing', 'acme/shipping']) {
      await read(`domain tasks ${domain}`, documentOf(table, 'TASKS'), { domain, order: 'RECENTLY_UPDATED', first: 200 });
      await read(`domain notes ${domain}`, documentOf(domains, 'NOTES'), { domain });
    }
    await read('domain archived tasks acme', documentOf(table, 'TASKS'), { domain: 'acme', status: 'ARCHIVED', order: 'RECENTLY_UPDATED', first: 200 });
    await read('domain tasks acme, page of 2', documentOf(table, 'TASKS'), { domain: 'acme', order: 'RECENTLY_UPDATED', first: 2 });
    await read('note', documentOf(domains, 'NOTE'), { id: seeded.notes[1] });

    const attention = 'web/src/views/attention.tsx';
    const top = await read('attention top', documentOf(attention, 'TOP'));
    const source = fs.readFileSync(path.resolve(import.meta.dirname, '../..', attention), 'utf8');
    const openFields = /mustRead\(domain: \$\{JSON\.stringify\(path\)\}\) \{ (.*?) \}`\)/.exec(source)?.[1];
    expect(openFields, `${attention} still reads mustRead per domain`).toBeTruthy();
    const paths = top.domains.map((domain: { path: string }) => domain.path);
    await read('attention open tasks', `{ ${paths.map((path: string, index: number) => `d${index}: mustRead(domain: ${JSON.stringify(path)}) { ${openFields} }`).join(' ')} }`);
    await read('attention finished', documentOf(attention, 'FINISHED'));

    const search = 'web/src/views/search.tsx';
    for (const query of ['refunds', 'webhook', 'carrier', 'nothing-matches-this']) await read(`search ${query}`, documentOf(search, 'SEARCH'), { query });

    const sessions = 'web/src/views/sessions.tsx';
    await read('sessions', documentOf(sessions, 'SESSIONS'), { first: 50 });
    await read('sessions finished', documentOf(sessions, 'SESSIONS'), { first: 50, finished: true });
    await read('sessions working, page of 2', documentOf(sessions, 'SESSIONS'), { first: 2, finished: false });
    for (const [index, id] of [...seeded.sessions, seeded.helper].entries()) await read(`session ${index + 1}`, documentOf(sessions, 'SESSION'), { id });

    await read('reminder settings', documentOf('web/src/views/reminders.tsx', 'SETTINGS'));
    await read('bench dashboard read', TASK_OPENED, { id: billing, deleted: false, first: 30 });
  });

  it('the GraphQL reads the tools and tests make answer as recorded', async () => {
    const { billing, billingItems: b } = seeded;
    for (const domain of ['acme', 'acme/checkout', 'acme/checkout/billing', 'acme/shipping', 'acme/none']) await read(`mustRead ${domain}`, MUST_READ, { domain });
    for (const under of [null, 'acme/checkout']) await read(`domains under ${under}`, DOMAINS, { under });
    for (const [domain, kind, status] of [['acme', null, null], ['acme', 'TASK', null], ['acme/checkout', 'NOTE', null], ['acme', 'TASK', 'ARCHIVED']]) {
      await read(`memories ${domain} ${kind} ${status}`, MEMORIES, { domain, kind, status, first: 50 });
    }
    const page = await read('memories acme, page of 3', MEMORIES, { domain: 'acme', first: 3 });
    await read('memories acme, second page of 3', MEMORIES, { domain: 'acme', first: 3, after: page.memories.pageInfo.endCursor });
    for (const [query, domain, kind] of [['refunds', null, null], ['webhook', 'acme/checkout', null], ['handler', null, 'TASK'], ['secret', null, null]]) {
      await read(`search ${query} ${domain} ${kind}`, SEARCH, { query, domain, kind, first: 20 });
    }
    await read('task notes', TASK_NOTES, { id: billing, first: 20 });
    await read('task notes of an item', TASK_NOTES, { id: billing, item: b[2], first: 20 });
    await read('task notes, page of 1', TASK_NOTES, { id: billing, first: 1 });
    await read('task comments', TASK_COMMENTS, { id: billing, first: 20 });
    await read('task comments with items', TASK_COMMENTS, { id: billing, includeItems: true, first: 20 });
    await read('task comments of an item', TASK_COMMENTS, { id: billing, item: b[1], first: 20 });
    await read('task history', READ_HISTORY, { id: billing, first: 50 });
    await read('task history, page of 2', READ_HISTORY, { id: billing, first: 2, after: seeded.historyCursor });
    for (const item of b) await read(`item knowledge ${b.indexOf(item) + 1}`, ITEM_KNOWLEDGE, { id: item, first: 20 });
    for (const [index, id] of [...seeded.sessions, seeded.helper].entries()) {
      await read(`session ${index + 1}`, READ_SESSION, { id });
      await read(`plan ${index + 1}`, PLAN, { id });
    }
    await read('recentSessions', RECENT_SESSIONS, {});
    await read('recentSessions first 2', RECENT_SESSIONS, { first: 2 });
    compare('graphql');
  });

  it("the MCP tools' reads and the plan tools' answers answer as recorded", async () => {
    const { billing, billingItems: b, checkout } = seeded;
    const kb = await connectMcp(server, { structured: true, tools: 'whole-list,knowledge-base' });
    clients.push(kb);
    // The session an MCP connection starts in the background, started before any call so every order is fixed.
    await kb.sessionId();
    await tool(kb, 'task_read items', 'task_read', { uid: billing, collection: 'items' });
    await tool(kb, 'task_read items offset 2', 'task_read', { uid: billing, collection: 'items', offset: '2' });
    await tool(kb, 'task_read notes', 'task_read', { uid: billing, collection: 'notes' });
    await tool(kb, 'task_read notes of an item', 'task_read', { uid: billing, collection: 'notes', item: b[2] });
    await tool(kb, 'task_read comments', 'task_read', { uid: billing, collection: 'comments' });
    await tool(kb, 'task_read comments of an item', 'task_read', { uid: billing, collection: 'comments', item: b[3] });
    await tool(kb, 'task_read checkout items', 'task_read', { uid: checkout, collection: 'items' });
    await tool(kb, 'get_memory task', 'get_memory', { uid: billing });
    await tool(kb, 'get_memory closed task', 'get_memory', { uid: seeded.closed });
    await tool(kb, 'get_memory note', 'get_memory', { uid: seeded.notes[0] });
    for (const domain of ['acme', 'acme/checkout', 'acme/checkout/billing', 'acme/none']) await tool(kb, `must_read ${domain}`, 'must_read', { domain });
    await tool(kb, 'list_by_domain acme', 'list_by_domain', { domain: 'acme' });
    await tool(kb, 'list_by_domain acme tasks', 'list_by_domain', { domain: 'acme', type: 'task' });
    await tool(kb, 'list_by_domain acme/checkout notes', 'list_by_domain', { domain: 'acme/checkout', type: 'note' });
    await tool(kb, 'list_by_domain acme archived', 'list_by_domain', { domain: 'acme', status: 'archived' });
    await tool(kb, 'search refunds', 'search', { query: 'refunds' });
    await tool(kb, 'search webhook in acme/checkout', 'search', { query: 'webhook', domain: 'acme/checkout' });
    await tool(kb, 'search nothing', 'search', { query: 'nothing-matches-this' });
    await tool(kb, 'todo_write', 'todo_write', { todos: [{ content: 'Read [[#1]] first', status: 'completed' }, { content: 'Fix it', status: 'in_progress' }, { content: 'Ship it', status: 'pending' }] });
    await tool(kb, 'todo_write again', 'todo_write', { todos: [{ content: 'Fix it', status: 'completed' }, { content: 'Ship it', status: 'in_progress' }] });

    const stepOps = await connectMcp(server, { structured: true, tools: 'step-ops' });
    clients.push(stepOps);
    await stepOps.sessionId();
    await tool(stepOps, 'todo view empty', 'todo', { op: 'view' });
    await tool(stepOps, 'todo set', 'todo', { op: 'set', tasks: ['Profile', 'Fix', 'Profile again'] });
    await tool(stepOps, 'todo update done', 'todo', { op: 'update', index: 1, status: 'done', validation: 'The flame graph shows the driver.' });
    await tool(stepOps, 'todo update failed', 'todo', { index: 2, status: 'failed' });
    await tool(stepOps, 'todo add', 'todo', { op: 'add', tasks: ['Fix again'] });
    await tool(stepOps, 'todo view', 'todo', { op: 'view' });
    await tool(stepOps, 'todo clear', 'todo', { op: 'clear' });

    const checklist = await connectMcp(server, { structured: true, tools: 'plan-and-finish' });
    clients.push(checklist);
    await checklist.sessionId();
    await tool(checklist, 'plan_tasks', 'plan_tasks', { tasks: ['Read the code', 'Write the test', 'Open the pull request'] });
    await tool(checklist, 'update_task doing', 'update_task', { task_id: 1, status: 'in_progress' });
    await tool(checklist, 'update_task done', 'update_task', { task_id: 1, status: 'done', note: 'Read it all.' });
    await tool(checklist, 'add_task', 'add_task', { text: 'Run the suite', after_id: 2 });
    await tool(checklist, 'update_task dropped', 'update_task', { task_id: 2, status: 'dropped', note: 'Covered already.' });
    await tool(checklist, 'update_task blocked', 'update_task', { task_id: 4, status: 'blocked', note: 'CI is down.' });
    await tool(checklist, 'update_task last', 'update_task', { task_id: 3, status: 'done', note: 'Merged.' });
    await tool(checklist, 'finish', 'finish', {});
    // What the plan tools left, read back as the dashboard reads sessions.
    for (const [index, client] of [kb, stepOps, checklist].entries()) await read(`mcp session ${index + 1}`, PLAN, { id: await client.sessionId() });
    answers.mcp['sessions read back'] = answers.graphql['mcp session 1'] && ['mcp session 1', 'mcp session 2', 'mcp session 3'].map((name) => answers.graphql[name]);
    for (const name of ['mcp session 1', 'mcp session 2', 'mcp session 3']) delete answers.graphql[name];
    compare('mcp');
  });
});
