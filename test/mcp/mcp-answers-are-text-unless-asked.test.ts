import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { textOf } from '../fixtures/mcp.js';
import { createTask } from '../fixtures/tasks.js';

/**
 * Claude Code and VS Code hand the model JSON.stringify(structuredContent),
 * dropping the text, whenever a tool result carries structuredContent. So by
 * default no tool lists an outputSchema and no answer carries
 * structuredContent: the model reads the words (plan-and-finish's
 * checklist, whole-list's message, the "(taskbase session …)" line). A
 * connection that asks for structured output (?structured=1, --structured)
 * gets it, and what a client that prefers it hands the model still holds
 * every line of the text answer. Through the SDK's own client, over
 * Streamable HTTP and over stdio, in every tool set.
 */
const CLI = path.resolve(import.meta.dirname, '../../dist/src/cli.js');
const SPAWNS = { timeout: 120_000 };

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

type Call = (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;

type Connect = (tools: string, structured: boolean) => StreamableHTTPClientTransport | StdioClientTransport;

const TRANSPORTS: [string, Connect][] = [
  ['Streamable HTTP', (tools, structured) => new StreamableHTTPClientTransport(new URL(`/mcp?tools=${tools}${structured ? '&structured=1' : ''}`, server.url))],
  ['stdio (taskbase mcp on the database)', (tools, structured) => new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--tools', tools, ...(structured ? ['--structured'] : [])],
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', DATABASE_URL: server.databaseUrl },
    stderr: 'pipe',
  })],
  ['stdio (taskbase mcp --url, relayed)', (tools, structured) => new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--url', `${server.url}/graphql`, '--tools', tools, ...(structured ? ['--structured'] : [])],
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' },
    stderr: 'pipe',
  })],
];

let runs = 0;

/** Each set's everyday calls, every one answered (none refused); the answers' texts are checked against what each set must say. */
const SETS: Record<string, (call: Call) => Promise<void>> = {
  'whole-list': async (call) => {
    const written = await call('todo_write', { todos: [{ content: 'Read the failing test', status: 'completed' }, { content: 'Fix the parser', status: 'in_progress' }] });
    expect(textOf(written)).toBe('Updated todo list: 0 pending, 1 in progress, 1 completed.');
  },
  'step-ops': async (call) => {
    await call('todo', { op: 'set', tasks: ['Read the code', 'Fix the bug'] });
    await call('todo', { op: 'update', index: 1, status: 'done', validation: 'read src/parser.ts' });
    expect(textOf(await call('todo', { op: 'view' }))).toContain('read src/parser.ts');
  },
  'plan-and-finish': async (call) => {
    await call('plan_tasks', { tasks: ['Read the code', 'Fix the parser'] });
    await call('update_task', { task_id: 1, status: 'done' });
    await call('add_task', { text: 'Add a regression test' });
    await call('update_task', { task_id: 2, status: 'done' });
    const dropped = await call('update_task', { task_id: 3, status: 'dropped', note: 'covered by the suite' });
    // The glyph checklist the model must see, in the text.
    expect(textOf(dropped)).toContain('[x] 1. Read the code');
    expect(textOf(dropped)).toContain('[-] 3. Add a regression test - covered by the suite (added mid-session)');
    const finished = await call('finish', {});
    expect(textOf(finished)).toMatch(/^3 tasks: 2 done, 1 dropped\./);
  },
  'knowledge-base': async (call) => {
    runs += 1;
    const domain = `answers/run-${runs}`;
    // The connection starts its own session: its first knowledge-base answer names it, for a stop hook.
    const first = await call('must_read', { domain });
    expect(textOf(first)).toMatch(/\(taskbase session [0-9a-f-]{36}: a stop hook reminds it with taskbase remind --session [0-9a-f-]{36}\)/);
    const { task, items } = await createTask(server, ['Key the handler', 'Replay the events'], { domain });
    await call('task', { title: 'Rotate the keys', goal: 'No key is older than 90 days.', items: 'List the keys\nRotate the old ones', domain });
    await call('task_item', { uid: task.id, item: items[0]!.id, state: 'doing', comment: 'starting' });
    await call('task_add', { uid: task.id, items: 'Document the replay' });
    await call('task_comment', { uid: task.id, body: `see [[#${items[0]!.id}]]` });
    await call('task_note', { uid: task.id, title: 'Why replay', body: `The provider resends; [[#${items[1]!.id}]] handles it.` });
    await call('task_read', { uid: task.id, collection: 'items' });
    await call('get_memory', { uid: task.id });
    const note = textOf(await call('remember', { title: 'Provider retries for 72h', body: 'Events can arrive three days late.', domain }));
    await call('edit_memory', { uid: /note (\d+)/.exec(note)![1], body: 'Events can arrive three days late, out of order.' });
    await call('search', { query: 'retries', domain });
    await call('list_by_domain', { domain });
    await call('task_ready', { domain });
    await call('task_next', { domain });
    await call('task_claim', { item: items[1]!.id, action: 'release' });
  },
};

/** What a client that prefers structuredContent hands the model: the JSON text. */
const handedToTheModel = (result: CallToolResult) => JSON.stringify(result.structuredContent);

/** The connections a client opens to use every set: a plan set at a time, knowledge-base beside whole-list as by default. */
const CONNECTIONS: Record<string, string[]> = {
  'whole-list,knowledge-base': ['whole-list', 'knowledge-base'],
  'step-ops': ['step-ops'],
  'plan-and-finish': ['plan-and-finish'],
};

async function checkAnswers(connect: Connect, tools: string, structured: boolean): Promise<void> {
  const client = new Client({ name: 'text-answers', version: '1.0.0' });
  await client.connect(connect(tools, structured));
  try {
    const listed = (await client.listTools()).tools;
    expect(listed.length).toBeGreaterThan(0);
    for (const tool of listed) expect(tool.outputSchema, `${tool.name} (structured ${structured})`).toEqual(structured ? expect.objectContaining({ type: 'object' }) : undefined);

    const answered: [string, CallToolResult][] = [];
    const call: Call = async (name, args) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
      answered.push([name, result]);
      return result;
    };
    for (const set of CONNECTIONS[tools]!) await SETS[set]!(call);
    // Every tool of the connection answered at least once.
    expect([...new Set(answered.map(([name]) => name))].sort()).toEqual(listed.map((tool) => tool.name).sort());

    for (const [name, result] of answered) {
      const text = textOf(result);
      expect(text.length, name).toBeGreaterThan(0);
      if (!structured) {
        expect(result.structuredContent, `${name} answers text only`).toBeUndefined();
        continue;
      }
      expect((result.structuredContent as { answer?: string } | undefined)?.answer, name).toBe(text);
      const json = handedToTheModel(result);
      for (const line of text.split('\n')) expect(json, `${name}: "${line}"`).toContain(JSON.stringify(line).slice(1, -1));
    }
  } finally {
    await client.close();
  }
}

describe.each(TRANSPORTS)('over %s', (transport, connect) => {
  // Relayed, one plan set is enough to show --structured travels to the server; each case is its own client process.
  const connections = transport.includes('relayed') ? ['plan-and-finish'] : Object.keys(CONNECTIONS);
  it.concurrent.each(connections)('%s: text only by default; with structured output on, the structured answer holds every line of the text', SPAWNS, async (tools) => {
    await Promise.all([checkAnswers(connect, tools, false), checkAnswers(connect, tools, true)]);
  });
});
