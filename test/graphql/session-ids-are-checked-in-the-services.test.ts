/**
 * Who calls is checked in the services, so GraphQL, MCP over HTTP and
 * `taskbase mcp` over stdio all get it: a session id no session can have
 * (NUL, 10,000 characters) reads as nothing and never reaches the database
 * as SQL; a write whose x-session-id (or --session) names no started session
 * is refused with NO_SESSION and records nothing, while reads with it keep
 * working; and a helper may start only under a parent of the caller's own
 * bearer token.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, testDatabase, type GraphQLResponse, type TestServer } from '../harness.js';
import { CREATE_NOTE, CREATE_TASK, READ_SESSION, START_SESSION, WRITE_TODOS } from '../fixtures/documents.js';
import { connectMcp, textOf } from '../fixtures/mcp.js';
import { databaseState } from '../fixtures/nothing-recorded.js';
import { todos } from '../fixtures/sessions.js';

const CLI = path.resolve('dist/src/cli.js');
const ALICE = 'alice-secret';
const BOB = 'bob-secret';
const LONG = 's'.repeat(10_000);

let server: TestServer;
let origin: string;
beforeAll(async () => {
  server = await startTestServer({ env: { TASKBASE_TOKENS: `${ALICE},${BOB}` } });
  origin = server.app.server.url;
});
afterAll(async () => { await server?.close(); });

function as(token: string, session?: string) {
  return { session, headers: { authorization: `Bearer ${token}` } };
}

function codeOf(result: GraphQLResponse): string {
  return String(result.errors?.[0]?.extensions?.code ?? 'OK');
}

async function startedBy(token: string, input?: Record<string, unknown>): Promise<string> {
  const result = await server.gql(START_SESSION, { input }, as(token));
  expect(result.errors).toBeUndefined();
  return result.data!.startSession.id;
}

const task = (title: string) => ({ input: { title, goal: 'Checked in the services.', domain: 'ids/checked', items: ['One'] } });

interface Agent {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

async function connected(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Agent> {
  const client = new Client({ name: 'taskbase-ids', version: '1.0.0' });
  await client.connect(transport);
  return { client, call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult };
}

/** An agent over /mcp with structured output (?structured=1), whose answers carry the session's id. */
function httpAgent(tools: string, token: string, headers: Record<string, string> = {}): Promise<Agent> {
  return connected(new StreamableHTTPClientTransport(new URL(`/mcp?tools=${tools}&structured=1`, origin), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
  }));
}

describe('an id no session, task or item can have', () => {
  it('reads as nothing over GraphQL, never as a failure, on every database', async () => {
    const read = await server.gql(
      'query($bad: ID!, $long: ID!) { session(id: $bad) { id } long: session(id: $long) { id } task(id: $bad) { id } item(id: $bad) { id } memory(id: $bad) { id } }',
      { bad: '1\u0000', long: LONG }, as(ALICE),
    );
    expect(read.errors).toBeUndefined();
    expect(read.data).toEqual({ session: null, long: null, task: null, item: null, memory: null });
  });

  it('as a cursor is BAD_USER_INPUT saying what to send', async () => {
    // WzFd is the cursor [1]: with a NUL after it, it is not a cursor any more.
    for (const after of ['\u0000', 'WzFd\u0000', LONG]) {
      const refused = await server.gql('query($after: String) { memories(domain: "ids", after: $after) { totalCount } }', { after }, as(ALICE));
      expect(codeOf(refused)).toBe('BAD_USER_INPUT');
      expect(refused.errors![0].message).toContain('Pass pageInfo.endCursor');
    }
  });

  it('as a parent or a write\'s id is a coded refusal that records nothing', async () => {
    const before = await databaseState(server);
    const parent = await server.gql(START_SESSION, { input: { parentId: '1\u0000' } }, as(ALICE));
    expect(codeOf(parent)).toBe('NOT_FOUND');
    expect(parent.errors![0].message).not.toContain('\u0000');
    const update = await server.gql('mutation { updateItem(input: { id: "1\\u0000", state: DONE }) { id } }', {}, as(ALICE));
    expect(codeOf(update)).toBe('NOT_FOUND');
    expect(await databaseState(server)).toEqual(before);
  });

  it('over MCP is answered as naming nothing, by the knowledge-base and the plan tools', async () => {
    const kb = await connectMcp(server, { structured: true, tools: 'knowledge-base' });
    expect(textOf(await kb.call('get_memory', { uid: '1\u0000' }))).toMatch(/^Error: no memory has uid/);
    expect(textOf(await kb.call('task_read', { uid: '1\u0000', collection: 'items' }))).toMatch(/^Error: /);
    // Its own session starts in the background: wait for it, so the snapshot below holds it.
    await kb.sessionId();
    await kb.close();
    const before = await databaseState(server);
    const joined = await connectMcp(server, { structured: true, tools: 'step-ops', sessionId: '1\u0000' });
    expect(textOf(await joined.call('todo', { op: 'view' }))).toBe('Error: todo_write requires an owning agent session');
    expect(textOf(await joined.call('todo', { tasks: ['Read it'] }))).toBe('Error: todo_write requires an owning agent session');
    await joined.close();
    expect(await databaseState(server)).toEqual(before);
  });
});

describe('an x-session-id that names no started session', () => {
  it('is refused on a write with NO_SESSION saying what to send, and nothing is recorded', async () => {
    for (const session of ['no-such-session', LONG]) {
      const before = await databaseState(server);
      const refused = await server.gql(CREATE_TASK, task(`Unknown ${session.length}`), as(ALICE, session));
      expect(codeOf(refused)).toBe('NO_SESSION');
      expect(refused.errors![0].message).toContain('names no started session');
      expect(refused.errors![0].message).toContain('Send the id startSession returned');
      expect(refused.errors![0].message.length).toBeLessThan(400);
      const note = await server.gql(CREATE_NOTE, { input: { title: 'N', body: 'b', domain: 'ids/checked' } }, as(ALICE, session));
      expect(codeOf(note)).toBe('NO_SESSION');
      // The plan mutations keep the to-do tool's words, which clients match on.
      const plan = await server.gql(WRITE_TODOS, { todos: todos(['Step', 'PENDING']) }, as(ALICE, session));
      expect(plan.errors![0]).toMatchObject({ message: 'todo_write requires an owning agent session', extensions: { code: 'NO_SESSION' } });
      expect(await databaseState(server)).toEqual(before);
    }
    const memories = await server.gql('{ memories(domain: "ids/checked") { totalCount } }', {}, as(ALICE));
    expect(memories.data!.memories.totalCount).toBe(0);
  });

  it('still reads, recording nothing on any session', async () => {
    await server.gql(CREATE_TASK, task('Readable'), as(ALICE));
    const before = await databaseState(server);
    const read = await server.gql('{ mustRead(domain: "ids/checked") { id title } memories(domain: "ids/checked") { totalCount } }', {}, as(ALICE, 'no-such-session'));
    expect(read.errors).toBeUndefined();
    expect(read.data!.mustRead.map((row: { title: string }) => row.title)).toContain('Readable');
    expect(await databaseState(server)).toEqual(before);
  });

  it('is never the session a write names: a started one is, and its id is what history records', async () => {
    const session = await startedBy(ALICE);
    const made = await server.gql(CREATE_TASK, task('Attributed'), as(ALICE, session));
    expect(made.errors).toBeUndefined();
    const history = await server.gql('query($id: ID!) { task(id: $id) { history(first: 5) { nodes { sessionId } } } }', { id: made.data!.createTask.task.id }, as(ALICE));
    expect(history.data!.task.history.nodes).toEqual([{ sessionId: session }]);
  });

  it('over MCP HTTP (x-session-id) is refused by every write tool, recording nothing', async () => {
    for (const session of ['no-such-session', LONG]) {
      const before = await databaseState(server);
      const agent = await httpAgent('whole-list,knowledge-base', ALICE, { 'x-session-id': session });
      const created = await agent.call('task', { title: 'Over HTTP', goal: 'g', items: 'One', domain: 'ids/checked' });
      expect(created.isError).toBe(true);
      expect(textOf(created)).toMatch(/^Error: The session id sent with this call .* names no started session/);
      expect(textOf(await agent.call('todo_write', { todos: [{ content: 'Step', status: 'pending' }] }))).toBe('Error: todo_write requires an owning agent session');
      expect((await agent.call('search', { query: 'Readable' })).isError).toBeFalsy();
      await agent.client.close();
      expect(await databaseState(server)).toEqual(before);
    }
  });

  it('over stdio (--session) is refused by every write tool, recording nothing', { timeout: 120_000 }, async () => {
    const { file, databaseUrl } = await testDatabase();
    for (const session of ['no-such-session', LONG]) {
      const agent = await connected(new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--tools', 'whole-list,knowledge-base', '--session', session],
        env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl },
        stderr: 'pipe',
      }));
      const created = await agent.call('remember', { title: 'Over stdio', body: 'b', domain: 'ids/stdio' });
      expect(textOf(created)).toMatch(/^Error: The session id sent with this call .* names no started session/);
      expect(textOf(await agent.call('todo_write', { todos: [{ content: 'Step', status: 'pending' }] }))).toBe('Error: todo_write requires an owning agent session');
      await agent.client.close();
    }
    const reader = await startTestServer({ file });
    try {
      const state = await databaseState(reader);
      expect([state.counts.memories, state.counts.sessions, state.counts.items]).toEqual([0, 0, 0]);
    } finally {
      await reader.close();
    }
  });
});

describe('a parent session started with another bearer token', () => {
  it('is refused to startSession as NOT_FOUND, word for word as a parent that does not exist; the owner\'s helpers still start', async () => {
    const parent = await startedBy(ALICE);
    const before = await databaseState(server);
    const foreign = await server.gql(START_SESSION, { input: { parentId: parent } }, as(BOB));
    const missing = await server.gql(START_SESSION, { input: { parentId: 'no-such-session' } }, as(BOB));
    expect([codeOf(foreign), codeOf(missing)]).toEqual(['NOT_FOUND', 'NOT_FOUND']);
    expect(foreign.errors![0].message.replace(parent, 'ID')).toBe(missing.errors![0].message.replace('no-such-session', 'ID'));
    expect(await databaseState(server)).toEqual(before);

    const helper = await startedBy(ALICE, { parentId: parent });
    const read = await server.gql('query($id: ID!) { session(id: $id) { children { id } } }', { id: parent }, as(ALICE));
    expect(read.data!.session.children).toEqual([{ id: helper }]);
  });

  it('is refused over MCP HTTP (x-parent-session-id): no helper starts, and the owner\'s own helper does', async () => {
    const parent = await startedBy(ALICE);
    const before = await databaseState(server);
    const intruder = await httpAgent('whole-list', BOB, { 'x-parent-session-id': parent });
    const refused = await intruder.call('todo_write', { todos: [{ content: 'Attached', status: 'pending' }] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^Error: No session has the id ".*"\. Pass the id startSession returned/);
    await intruder.client.close();
    expect(await databaseState(server)).toEqual(before);

    const own = await httpAgent('whole-list', ALICE, { 'x-parent-session-id': parent });
    const written = await own.call('todo_write', { todos: [{ content: 'Helping', status: 'pending' }] });
    expect(written.isError).toBeFalsy();
    const helperId = (written.structuredContent as { sessionId: string }).sessionId;
    await own.client.close();
    const helper = await server.gql(READ_SESSION, { id: helperId }, as(ALICE));
    expect(helper.data!.session.parent).toEqual({ id: parent });
  });
});
