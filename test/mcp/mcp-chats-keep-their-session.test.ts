import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, testDatabase, type TestServer } from '../harness.js';
import { READ_SESSION } from '../fixtures/documents.js';
import { databaseState } from '../fixtures/nothing-recorded.js';
import { textOf } from '../fixtures/mcp.js';

/**
 * What a chat needs from taskbase across its life, over the real transports
 * (the built CLI over stdio, Streamable HTTP at /mcp) with auth on: a chat
 * key that finds the chat's session and plan again after a reconnect (per
 * token), knowledge-base answers that name the session, turns started and
 * ended from the CLI a hook runs, and items read back with their linked
 * memories and counts.
 */
const CLI = path.resolve('dist/src/cli.js');
const WRITE = 'secret-writer';
const OTHER = 'secret-other-writer';
const run = promisify(execFile);

let server: TestServer;
let origin: string;
beforeAll(async () => {
  server = await startTestServer({ env: { TASKBASE_TOKENS: `${WRITE},${OTHER}` } });
  origin = server.app.server.url;
});
afterAll(async () => { await server?.close(); });

interface Agent {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

async function connected(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Agent> {
  const client = new Client({ name: 'taskbase-chat', version: '1.0.0' });
  await client.connect(transport);
  return { client, call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult, close: () => client.close() };
}

/** Agents here ask for structured output (?structured=1, --structured): their answers carry the session's id as data. */
function httpAgent(query: string, headers: Record<string, string> = {}, token = WRITE): Promise<Agent> {
  return connected(new StreamableHTTPClientTransport(new URL(`/mcp${query}${query.includes('?') ? '&' : '?'}structured=1`, origin), { requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } } }));
}

function stdioAgent(args: string[], env: Record<string, string>): Promise<Agent> {
  return connected(new StdioClientTransport({
    command: process.execPath, args: [CLI, 'mcp', '--structured', ...args], env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, stderr: 'pipe',
  }));
}

/** The CLI a hook runs, through the test server, as the write token. */
async function cli(args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [CLI, ...args, '--url', `${origin}/graphql`], { env: { PATH: process.env.PATH ?? '', TASKBASE_TOKEN: WRITE, LOG_LEVEL: 'silent' } });
  return stdout;
}

async function sessionOf(id: string, token = WRITE) {
  return (await server.gql(READ_SESSION, { id }, { headers: { authorization: `Bearer ${token}` } })).data!.session;
}

const stepsOf = (session: { plan: { items: { nodes: { text: string; state: string }[] } } | null }) =>
  (session.plan?.items.nodes ?? []).map((step) => `${step.text}:${step.state}`);
const sessionIdOf = (result: CallToolResult) => (result.structuredContent as { sessionId: string }).sessionId;
const SPAWNS = { timeout: 120_000 };

describe('a chat key (x-session-key, --session-key)', () => {
  it('finds the same session and list after a reconnect, in each plan set; another token with the same key gets its own', async () => {
    const key = 'claude-session-5b1c2e7a';
    const first = await httpAgent('?tools=whole-list', { 'x-session-key': key });
    const written = await first.call('todo_write', { todos: [{ content: 'Read the failing test', status: 'completed' }, { content: 'Fix the parser', status: 'in_progress' }] });
    const sessionId = sessionIdOf(written);
    await first.close();
    const again = await httpAgent('?tools=whole-list', { 'x-session-key': key });
    const rewritten = await again.call('todo_write', { todos: [{ content: 'Read the failing test', status: 'completed' }, { content: 'Fix the parser', status: 'completed' }] });
    expect(sessionIdOf(rewritten)).toBe(sessionId);
    expect(stepsOf(await sessionOf(sessionId))).toEqual(['Read the failing test:DONE', 'Fix the parser:DONE']);
    await again.close();

    const stepKey = 'chat-step-ops';
    const stepper = await httpAgent('?tools=step-ops', { 'x-session-key': stepKey });
    await stepper.call('todo', { tasks: ['Reproduce the crash', 'Fix it'] });
    await stepper.close();
    const stepperAgain = await httpAgent('?tools=step-ops', { 'x-session-key': stepKey });
    expect(textOf(await stepperAgain.call('todo', { op: 'view' }))).toMatch(/Reproduce the crash[\s\S]*Fix it/);
    await stepperAgain.close();

    const planKey = 'chat-plan-and-finish';
    const planner = await httpAgent('?tools=plan-and-finish', { 'x-session-key': planKey });
    await planner.call('plan_tasks', { tasks: ['Write the migration', 'Run it on a copy'] });
    await planner.close();
    const plannerAgain = await httpAgent('?tools=plan-and-finish', { 'x-session-key': planKey });
    const moved = await plannerAgain.call('update_task', { task_id: 1, status: 'in_progress' });
    expect(textOf(moved)).toContain('[~] 1. Write the migration');
    expect(textOf(moved)).toContain('[ ] 2. Run it on a copy');
    await plannerAgain.close();

    const stranger = await httpAgent('?tools=whole-list', { 'x-session-key': key }, OTHER);
    const theirs = await stranger.call('todo_write', { todos: [{ content: 'Their own step', status: 'pending' }] });
    expect(sessionIdOf(theirs)).not.toBe(sessionId);
    expect(stepsOf(await sessionOf(sessionIdOf(theirs), OTHER))).toEqual(['Their own step:PENDING']);
    expect(stepsOf(await sessionOf(sessionId))).toEqual(['Read the failing test:DONE', 'Fix the parser:DONE']);
    await stranger.close();
  });

  it('refuses a key no chat can have, and a key beside a session id, at initialize, starting nothing', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${WRITE}` };
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const before = await databaseState(server);
    for (const extra of [{ 'x-session-key': 'k'.repeat(129) }, { 'x-session-key': 'a\tb' }, { 'x-session-key': 'k', 'x-session-id': 'some-session' }] as Record<string, string>[]) {
      const response = await fetch(`${origin}/mcp?tools=whole-list`, { method: 'POST', headers: { ...headers, ...extra }, body: init });
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { message: string } };
      expect(error.message).toMatch(/^Error: .*(send 1 to 128 visible characters|not both)/);
    }
    expect(await databaseState(server)).toEqual(before);
  });

  it('over stdio, --session-key on its own database finds the list again in the next process', SPAWNS, async () => {
    const { databaseUrl } = await testDatabase();
    const args = ['--tools', 'step-ops', '--session-key', 'chat-over-stdio'];
    const first = await stdioAgent(args, { DATABASE_URL: databaseUrl });
    const set = await first.call('todo', { tasks: ['Read the code', 'Fix the bug'] });
    await first.call('todo', { index: 1, status: 'done', validation: 'read src/parser.ts' });
    await first.close();
    const second = await stdioAgent(args, { DATABASE_URL: databaseUrl });
    const view = await second.call('todo', { op: 'view' });
    expect(sessionIdOf(view)).toBe(sessionIdOf(set));
    expect(textOf(view)).toMatch(/Read the code[\s\S]*read src\/parser\.ts[\s\S]*Fix the bug/);
    await second.close();
    await expect(run(process.execPath, [CLI, 'mcp', '--session-key', 'a\u0007b'], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl } }))
      .rejects.toMatchObject({ stderr: expect.stringMatching(/^taskbase: The session key sent .* send 1 to 128 visible characters/) });
  });
});

describe('a knowledge-base-only connection', () => {
  it('names its session in its first answer and in every answer\'s sessionId, so a stop hook can remind it', async () => {
    const agent = await httpAgent('?tools=knowledge-base');
    const read = await agent.call('must_read', { domain: 'acme/shop' });
    const sessionId = sessionIdOf(read);
    expect(textOf(read)).toBe(`No open tasks in acme/shop.\n(taskbase session ${sessionId}: a stop hook reminds it with taskbase remind --session ${sessionId})`);
    const made = await agent.call('task', { title: 'Ship the cart badge', goal: 'The badge counts items.', items: 'Count the items\nShow the badge', domain: 'acme/shop' });
    expect(sessionIdOf(made)).toBe(sessionId);
    expect(textOf(made)).not.toContain('taskbase session');
    const reminder = await cli(['remind', '--session', sessionId]);
    expect(reminder).toContain('Before you stop: 1 open task in acme/shop may be out of date.');
    expect(reminder).toContain('- Ship the cart badge');
    await agent.close();
  });

  it('says nothing more when the session came with the connection (a chat key)', async () => {
    const agent = await httpAgent('?tools=knowledge-base', { 'x-session-key': 'kb-chat' });
    const read = await agent.call('must_read', { domain: 'acme/keyed' });
    expect(textOf(read)).toBe('No open tasks in acme/keyed.');
    expect(sessionIdOf(read)).toMatch(/^[0-9a-f-]{36}$/);
    await agent.close();
  });
});

describe('turns outside GraphQL', () => {
  it('taskbase turn start clears the standing plan until the agent updates it; taskbase remind ends the turn, by key', SPAWNS, async () => {
    const key = 'chat-with-turns';
    const agent = await httpAgent('?tools=whole-list,knowledge-base', { 'x-session-key': key });
    const written = await agent.call('todo_write', { todos: [{ content: 'Read the logs', status: 'in_progress' }] });
    const sessionId = sessionIdOf(written);
    await agent.call('task', { title: 'Rotate the keys', goal: 'No key is older than 90 days.', items: 'List the keys\nRotate the old ones', domain: 'acme/ops' });
    const before = await sessionOf(sessionId);
    expect(before).toMatchObject({ turn: 0, standingPlan: { id: expect.any(String) } });
    expect(await cli(['turn', 'start', '--session-key', key])).toBe('');
    expect(await sessionOf(sessionId)).toMatchObject({ turn: 1, standingPlan: null });
    expect(JSON.parse(await cli(['turn', 'start', '--session-key', key, '--json']))).toEqual({ turn: 2 });
    await agent.call('todo_write', { todos: [{ content: 'Read the logs', status: 'completed' }] });
    expect(await sessionOf(sessionId)).toMatchObject({ turn: 2, standingPlan: { id: expect.any(String) } });
    const reminder = await cli(['remind', '--session-key', key]);
    expect(reminder).toContain('- Rotate the keys');
    expect(await cli(['remind', '--session-key', key])).toBe('');
    await agent.close();
    await expect(cli(['turn', 'start', '--session-key', 'no-such-chat'])).rejects.toMatchObject({ stderr: expect.stringContaining('taskbase: no started session has key "no-such-chat"') });
  });
});

describe('items as an agent reads them', () => {
  it('task_read items and get_memory show each item\'s linked memories and its counts of notes, comments and links', async () => {
    const agent = await httpAgent('?tools=knowledge-base');
    const made = await agent.call('task', { title: 'Move billing webhooks', goal: 'Deduplicated by event id.', items: 'Key by event id\nCover refunds', domain: 'acme/billing' });
    const { uid, items } = made.structuredContent as { uid: string; items: [string, string] };
    const note = (await agent.call('remember', { title: 'Provider retries for 72h', body: 'Events can arrive three days late.', domain: 'acme/billing' })).structuredContent as { uid: string };
    await agent.call('task_item', { uid, item: items[0], state: 'done', comment: 'Keyed.', related: note.uid });
    await agent.call('task_comment', { uid, body: 'Check the replay', item: items[0] }); // the second: task_item's comment is the first
    await agent.call('task_note', { uid, title: 'Brief', items: items[0], goal: 'g', context: 'c', steps: 's', pitfalls: 'p', done_when: 'd', depends_on: 'none' });
    const read = await agent.call('task_read', { uid, collection: 'items' });
    const entries = (read.structuredContent as { entries: Record<string, unknown>[] }).entries;
    expect(entries[0]).toMatchObject({ id: items[0], notes: 1, comments: 2, links: 1, related: [{ uid: note.uid, type: 'note', title: 'Provider retries for 72h' }] });
    expect(entries[1]).toMatchObject({ id: items[1], notes: 0, comments: 0, links: 0, related: [] });
    expect(textOf(read)).toContain(`1 note, 2 comments, 1 link: ${note.uid} "Provider retries for 72h" (note)`);
    const memory = await agent.call('get_memory', { uid });
    expect((memory.structuredContent as { linked: unknown[] }).linked).toEqual([
      { id: items[0], number: 1, text: 'Key by event id', notes: 1, comments: 2, links: 1, related: [{ uid: note.uid, type: 'note', title: 'Provider retries for 72h' }] },
    ]);
    expect(textOf(memory)).toContain('Items with notes, comments or linked memories:');
    await agent.close();
  });
});
