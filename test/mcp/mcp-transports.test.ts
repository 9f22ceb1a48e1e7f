import path from 'node:path';
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
 * The MCP transports end to end, with auth on: `taskbase mcp` over stdio
 * (its own database, or a running server through --url) spawned from the
 * built CLI, and Streamable HTTP at /mcp of the started server.
 */
const CLI = path.resolve('dist/src/cli.js');
const WRITE = 'secret-writer';
const READ = 'secret-reader';
const OTHER = 'secret-other-writer';

let server: TestServer;
let origin: string;
beforeAll(async () => {
  server = await startTestServer({ env: { TASKBASE_TOKENS: `${WRITE},${OTHER},${READ}:read` } });
  origin = server.app.server.url;
});
afterAll(async () => { await server?.close(); });

interface Agent {
  client: Client;
  errors: Error[];
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

async function connected(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Agent> {
  const client = new Client({ name: 'taskbase-e2e', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return { client, errors, call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult };
}

function stdioAgent(args: string[], env: Record<string, string>): Promise<Agent> {
  return connected(new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--structured', ...args],
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    stderr: 'pipe',
  }));
}

/** Agents here ask for structured output (?structured=1, --structured): their answers carry the session's id as data. */
function httpAgent(query: string, headers: Record<string, string> = {}): Promise<Agent> {
  return connected(new StreamableHTTPClientTransport(new URL(`/mcp${query}${query.includes('?') ? '&' : '?'}structured=1`, origin), { requestInit: { headers: { authorization: `Bearer ${WRITE}`, ...headers } } }));
}

async function sessionOf(id: string) {
  const result = await server.gql(READ_SESSION, { id }, { headers: { authorization: `Bearer ${WRITE}` } });
  return result.data!.session;
}

const stepsOf = (session: { plan: { items: { nodes: { text: string; state: string }[] } } | null }) =>
  (session.plan?.items.nodes ?? []).map((step) => `${step.text}:${step.state}`);

describe('stdio', () => {
  // Each spawned CLI loads the whole server, which takes seconds on a busy machine: these tests get more time.
  const SPAWNS = { timeout: 120_000 };

  it('serves the tools on its own database, with nothing but MCP on stdout', SPAWNS, async () => {
    const { file, databaseUrl } = await testDatabase();
    const agent = await stdioAgent(['--tools', 'step-ops'], { DATABASE_URL: databaseUrl });
    expect((await agent.client.listTools()).tools.map((tool) => tool.name)).toEqual(['todo']);
    const set = await agent.call('todo', { tasks: ['Read the code', 'Fix the bug'] });
    const sessionId = (set.structuredContent as { sessionId: string }).sessionId;
    expect(textOf(await agent.call('todo', { index: 1, status: 'done' }))).toMatch(/^Error: validation_required/);
    await agent.call('todo', { index: 1, status: 'done', validation: 'read src/parser.ts' });
    await agent.client.close();
    expect(agent.errors).toEqual([]);
    const reader = await startTestServer({ file });
    try {
      const session = (await reader.ok(READ_SESSION, { id: sessionId })).session;
      expect(stepsOf(session)).toEqual(['Read the code:DONE', 'Fix the bug:PENDING']);
    } finally {
      await reader.close();
    }
  });

  it('two processes on one database through --url keep separate plans, and a helper (--parent) keeps its own', SPAWNS, async () => {
    const env = { TASKBASE_TOKEN: WRITE };
    const url = `${origin}/graphql`;
    const [first, second] = await Promise.all([stdioAgent(['--url', url, '--tools', 'whole-list'], env), stdioAgent(['--url', url, '--tools', 'whole-list'], env)]);
    const a = await first.call('todo_write', { todos: [{ content: 'Plan of the first', status: 'in_progress' }] });
    const b = await second.call('todo_write', { todos: [{ content: 'Plan of the second', status: 'pending' }] });
    expect(textOf(a)).toBe('Updated todo list: 0 pending, 1 in progress, 0 completed.');
    const firstId = (a.structuredContent as { sessionId: string }).sessionId;
    const secondId = (b.structuredContent as { sessionId: string }).sessionId;
    expect(firstId).not.toBe(secondId);
    const helper = await stdioAgent(['--url', url, '--tools', 'plan-and-finish', '--parent', firstId], env);
    const helped = await helper.call('plan_tasks', { tasks: ['Read the logs', 'Report back'] });
    const helperId = (helped.structuredContent as { sessionId: string }).sessionId;
    expect(stepsOf(await sessionOf(firstId))).toEqual(['Plan of the first:IN_PROGRESS']);
    expect(stepsOf(await sessionOf(secondId))).toEqual(['Plan of the second:PENDING']);
    const helperSession = await sessionOf(helperId);
    expect(stepsOf(helperSession)).toEqual(['Read the logs:PENDING', 'Report back:PENDING']);
    expect(helperSession.parent).toEqual({ id: firstId });
    expect(helperSession.rules.planOnce).toBe(true);
    for (const agent of [first, second, helper]) {
      await agent.client.close();
      expect(agent.errors).toEqual([]);
    }
  });

  it('refuses to start with two plan sets', SPAWNS, async () => {
    await expect(stdioAgent(['--tools', 'whole-list,step-ops'], { DATABASE_URL: (await testDatabase()).databaseUrl })).rejects.toThrow();
  });
});

describe('Streamable HTTP at /mcp', () => {
  it('answers 401 without a known bearer token', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    expect((await fetch(`${origin}/mcp`, { method: 'POST', headers, body })).status).toBe(401);
    expect((await fetch(`${origin}/mcp`, { method: 'POST', headers: { ...headers, authorization: 'Bearer wrong' }, body })).status).toBe(401);
    await expect(connected(new StreamableHTTPClientTransport(new URL('/mcp', origin)))).rejects.toThrow();
  });

  it('lets a read token read but refuses its writes, recording nothing', async () => {
    const reader = await httpAgent('?tools=whole-list,knowledge-base', { authorization: `Bearer ${READ}` });
    expect((await reader.client.listTools()).tools.length).toBe(16);
    const before = await databaseState(server);
    for (const [name, args] of [
      ['todo_write', { todos: [{ content: 'A', status: 'pending' }] }],
      ['remember', { title: 'T', body: 'B', domain: 'acme' }],
      ['task_next', { domain: 'acme' }],
    ] as const) {
      const result = await reader.call(name, args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Error: .*may only read/);
    }
    expect((await reader.call('search', { query: 'anything' })).isError).toBeFalsy();
    await reader.client.close();
    const planReader = await httpAgent('?tools=plan-and-finish', { authorization: `Bearer ${READ}` });
    expect(textOf(await planReader.call('plan_tasks', { tasks: ['Read it', 'Change it'] }))).toMatch(/^Error: .*may only read/);
    await planReader.client.close();
    expect(await databaseState(server)).toEqual(before);
  });

  it('keeps two HTTP sessions apart, each one agent session with the preset of its set', async () => {
    const one = await httpAgent('?tools=plan-and-finish');
    const two = await httpAgent('?tools=step-ops');
    const planned = await one.call('plan_tasks', { tasks: ['Reproduce the crash', 'Fix the parser'] });
    const stepped = await two.call('todo', { tasks: ['Read the code'] });
    const oneId = (planned.structuredContent as { sessionId: string }).sessionId;
    const twoId = (stepped.structuredContent as { sessionId: string }).sessionId;
    expect(oneId).not.toBe(twoId);
    expect((await sessionOf(oneId)).rules.planOnce).toBe(true);
    expect((await sessionOf(twoId)).rules.noteRequiredFor).toEqual(['DONE']);
    expect(stepsOf(await sessionOf(oneId))).toEqual(['Reproduce the crash:PENDING', 'Fix the parser:PENDING']);
    expect(stepsOf(await sessionOf(twoId))).toEqual(['Read the code:PENDING']);
    const helper = await httpAgent('?tools=whole-list', { 'x-parent-session-id': oneId });
    const helped = await helper.call('todo_write', { todos: [{ content: 'Helper step', status: 'pending' }] });
    const helperId = (helped.structuredContent as { sessionId: string }).sessionId;
    expect((await sessionOf(helperId)).parent).toEqual({ id: oneId });
    expect(stepsOf(await sessionOf(oneId))).toEqual(['Reproduce the crash:PENDING', 'Fix the parser:PENDING']);
    const joined = await httpAgent('?tools=plan-and-finish', { 'x-session-id': oneId });
    const refused = await joined.call('plan_tasks', { tasks: ['Rewrite', 'It all'] });
    expect(textOf(refused)).toMatch(/^Error: the task list has already been written\. Use update_task/);
    for (const agent of [one, two, helper, joined]) await agent.client.close();
  });

  it('keeps a session to the token that started it: another token can neither join it nor use its MCP session id', async () => {
    const owner = await httpAgent('?tools=whole-list');
    const written = await owner.call('todo_write', { todos: [{ content: 'Mine', status: 'in_progress' }] });
    const sessionId = (written.structuredContent as { sessionId: string }).sessionId;
    const before = await databaseState(server);
    const intruder = await httpAgent('?tools=whole-list', { authorization: `Bearer ${OTHER}`, 'x-session-id': sessionId });
    const refused = await intruder.call('todo_write', { todos: [{ content: 'Theirs', status: 'pending' }] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^Error: Session .* was started with another bearer token/);
    const mcpSession = (owner.client.transport as StreamableHTTPClientTransport).sessionId!;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} });
    const hijack = await fetch(`${origin}/mcp`, {
      method: 'POST', body,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${OTHER}`, 'mcp-session-id': mcpSession },
    });
    expect(hijack.status).toBe(403);
    expect(await databaseState(server)).toEqual(before);
    expect(stepsOf(await sessionOf(sessionId))).toEqual(['Mine:IN_PROGRESS']);
    for (const agent of [owner, intruder]) await agent.client.close();
  });

  it('answers a stateless call with no session by the to-do tool\'s refusal, and refuses two plan sets at initialize', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${WRITE}` };
    const call = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'todo_write', arguments: { todos: [{ content: 'A', status: 'pending' }] } } });
    const before = await databaseState(server);
    const response = await fetch(`${origin}/mcp?tools=whole-list`, { method: 'POST', headers, body: call });
    const body = (await response.json()) as { result: CallToolResult };
    expect(body.result.isError).toBe(true);
    expect(textOf(body.result)).toBe('Error: todo_write requires an owning agent session');
    expect(await databaseState(server)).toEqual(before);
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const two = await fetch(`${origin}/mcp?tools=whole-list,step-ops`, { method: 'POST', headers, body: init });
    expect(two.status).toBe(400);
    expect(((await two.json()) as { error: { message: string } }).error.message).toContain('at most one plan set');
  });
});
