import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { databaseState } from '../fixtures/nothing-recorded.js';
import { textOf } from '../fixtures/mcp.js';
import { startSession } from '../fixtures/sessions.js';

/**
 * The plan tool sets as their references' users know them (issue 19, gaps
 * 5-11), through the SDK's own client over both transports: Streamable HTTP
 * at /mcp, and `taskbase mcp --url` spawned from the built CLI. Repeated
 * steps where the references allow them, their limits and plain-text steps,
 * pending to put a task back, argument slips answered in the set's words,
 * every tool's hints, and a walk of every refusal each set gave, checked to
 * name only that set's tools and states.
 */
const CLI = path.resolve('dist/src/cli.js');
const SPAWNS = { timeout: 180_000 };

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

interface Agent {
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  ok(name: string, args?: Record<string, unknown>): Promise<{ text: string; data: any }>;
  /** A call that must be refused in the tools' own form, recording nothing; its text, kept for the vocabulary walk. */
  refused(name: string, args?: Record<string, unknown>): Promise<string>;
  refusals: string[];
  client: Client;
  close(): Promise<void>;
}

type Connect = (tools: string, sessionId: string) => Promise<Agent>;

const PRESETS: Record<string, string> = { 'plan-and-finish': 'PLAN_AND_FINISH', 'step-ops': 'STEP_OPS', 'whole-list': 'WHOLE_LIST' };

/** Each agent joins a session started beforehand with its set's preset, so a refusal's "nothing recorded" is not blurred by the session starting. */
async function connectTo(connect: Connect, tools: string): Promise<Agent> {
  return connect(tools, await startSession(server, { preset: PRESETS[tools.split(',')[0]!] }));
}

/** The text with what the agent itself sent quoted back taken out: echoing a wrong word is not speaking it. */
function withoutEcho(text: string, name: string, args: Record<string, unknown>): string {
  const strings = (value: unknown): string[] =>
    typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];
  const sent = [name, ...strings(args)];
  return sent.reduce((rest, value) => rest.split(`"${value}"`).join('"…"'), text);
}

async function agentOver(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Agent> {
  const client = new Client({ name: 'taskbase-gaps', version: '1.0.0' });
  await client.connect(transport);
  const refusals: string[] = [];
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    refusals,
    call,
    ok: async (name, args) => {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name} refused: ${textOf(result)}`);
      return { text: textOf(result), data: result.structuredContent };
    },
    refused: async (name, args = {}) => {
      const before = await databaseState(server);
      const result = await call(name, args);
      const text = textOf(result);
      expect(result.isError, text).toBe(true);
      expect(text).toMatch(/^Error: /);
      expect(text).not.toMatch(/MCP error|-32602|Input validation|Invalid input|expected \w+, received/);
      expect(await databaseState(server), `${name} refused but changed a row`).toEqual(before);
      refusals.push(withoutEcho(text, name, args));
      return text;
    },
    close: () => client.close(),
  };
}

const overHttp: Connect = (tools, sessionId) =>
  agentOver(new StreamableHTTPClientTransport(new URL(`/mcp?tools=${tools}&structured=1`, server.app.server.url), { requestInit: { headers: { 'x-session-id': sessionId } } }));
const overStdio: Connect = (tools, sessionId) =>
  agentOver(new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--url', `${server.app.server.url}/graphql`, '--tools', tools, '--session', sessionId, '--structured'],
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' },
    stderr: 'pipe',
  }));

/** Words of the GraphQL API and of the other sets that a set's answers must never use. */
const GRAPHQL_WORDS = /\b(writeTodos|setPlan|addSteps|updateStep|clearPlan|finishSession|addTaskNote|addItems|updateItem|setPlanRules)\b|\b(PENDING|IN_PROGRESS|DONE|FAILED|BLOCKED|DROPPED)\b/;
const FOREIGN: Record<string, RegExp> = {
  'plan-and-finish': /\b(todo_write|todo|task_item|failed|completed|validation(_required)?)\b|"op"/,
  'step-ops': /\b(todo_write|plan_tasks|update_task|add_task|task_id|task_item|completed|blocked)\b/,
  'whole-list': /\b(plan_tasks|update_task|add_task|task_item|done|failed|dropped|blocked|validation)\b|"op"/,
};

function speaksOnlyItsOwnWords(set: string, texts: readonly string[]): void {
  expect(texts.length).toBeGreaterThan(5);
  for (const text of texts) {
    expect(text, `${set} answered in GraphQL's words`).not.toMatch(GRAPHQL_WORDS);
    expect(text, `${set} answered in another set's words`).not.toMatch(FOREIGN[set]!);
  }
}

describe.each([
  ['Streamable HTTP', overHttp],
  ['stdio (taskbase mcp --url)', overStdio],
])('over %s', (_transport, connect) => {
  it('plan-and-finish: repeats allowed, its own limits, pending puts a task back, ids as strings, and only its own words', SPAWNS, async () => {
    const agent = await connectTo(connect, 'plan-and-finish');
    expect(await agent.refused('finish')).toBe(
      'Error: No task list was written. There is no task list, so there is nothing to finish against. Call plan_tasks first and say what you intend to do.',
    );
    expect(await agent.refused('plan_tasks', { tasks: Array.from({ length: 101 }, (_, i) => `Task ${i + 1}`) })).toMatch(
      /^Error: 101 tasks is too many; the limit is 20\./,
    );
    expect(await agent.refused('plan_tasks', { tasks: ['Only one'] })).toContain('give at least 2 tasks (got 1)');
    expect(await agent.refused('plan_tasks', { tasks: ['Short', 'x'.repeat(161)] })).toContain('task 2 is 161 characters; keep each task to 160.');

    const planned = await agent.ok('plan_tasks', { tasks: ['Run the tests', 'Fix the failures', 'Run the tests'] });
    expect(planned.text).toBe('[ ] 1. Run the tests\n[ ] 2. Fix the failures\n[ ] 3. Run the tests');
    expect(await agent.refused('plan_tasks', { tasks: ['Again', 'And again'] })).toContain('Use update_task');

    const started = await agent.ok('update_task', { task_id: '3', status: 'in_progress' });
    expect(started.text).toContain('[~] 3. Run the tests');
    const back = await agent.ok('update_task', { task_id: 3, status: 'pending' });
    expect(back.data.tasks[2]).toMatchObject({ id: 3, status: 'pending' });

    const rerun = await agent.ok('add_task', { text: 'Run the tests', after_id: '2' });
    expect(rerun.text).toBe('[ ] 1. Run the tests\n[ ] 2. Fix the failures\n[ ] 4. Run the tests (added mid-session)\n[ ] 3. Run the tests');
    const long = await agent.refused('add_task', { text: 'y'.repeat(161), after_id: 1 });
    expect(long).toMatch(/^Error: the new task is 161 characters; keep each task to 160\./);
    expect(long).not.toMatch(/task [25]\b|step/);

    expect(await agent.refused('update_task', { task_id: 2 })).toMatch(/^Error: `status` is missing: send a string\. pending, in_progress, done, blocked or dropped\./);
    expect(await agent.refused('update_task', { task_id: 'two', status: 'done' })).toMatch(/^Error: `task_id` must be a whole number, not "two"\./);
    expect(await agent.refused('update_task', { task_id: 2, status: 'failed' })).toContain('Use pending, in_progress, done, blocked or dropped.');
    expect(await agent.refused('update_task', { task_id: 2, status: 'blocked' })).toContain('needs a reason in note');
    expect(await agent.refused('update_task', { task_id: 9, status: 'done' })).toContain('there is no task 9. The tasks are: 1, 2, 4, 3.');
    expect(await agent.refused('finish')).toContain('4 of 4 tasks are still open');
    expect(await agent.refused('todo_write', { todos: [] })).toBe(
      'Error: there is no tool "todo_write" on this connection. Its tools are: plan_tasks, update_task, add_task, finish.',
    );
    speaksOnlyItsOwnWords('plan-and-finish', agent.refusals);
    await agent.close();
  });

  it('step-ops: repeats allowed, 200 steps of 500 characters, its own counts and words, index as a string', SPAWNS, async () => {
    const agent = await connectTo(connect, 'step-ops');
    expect(await agent.refused('todo', { op: 'update', index: 1, status: 'done', validation: 'ran it' })).toContain('No plan set for this session.');
    const big = Array.from({ length: 200 }, (_, i) => (i === 0 ? 's'.repeat(500) : `Step ${i + 1}`));
    expect((await agent.ok('todo', { op: 'set', tasks: big })).data.steps).toHaveLength(200);
    expect(await agent.refused('todo', { op: 'add', tasks: ['One more'] })).toContain('the plan has 200 steps and would have 201; the limit is 200.');
    expect(await agent.refused('todo', { op: 'set', tasks: [...big, 'Step 201'] })).toContain('the plan would have 201 steps; the limit is 200.');
    expect(await agent.refused('todo', { op: 'set', tasks: ['t'.repeat(501)] })).toContain('step 1 is 501 characters; keep each step to 500.');

    const set = await agent.ok('todo', { op: 'set', tasks: ['Run the tests', 'Fix the failures', 'Run the tests', 'Answer [[#12]] on the thread'] });
    expect(set.text).toMatch(/^New plan of 4 steps, all pending\. 4 steps: 4 pending, 0 in_progress, 0 done, 0 failed, 0 dropped\./);
    expect(set.data.steps[3].text).toBe('Answer [[#12]] on the thread');
    const added = await agent.ok('todo', { op: 'add', tasks: ['Run the tests'] });
    expect(added.text).toMatch(/^Added step 5\. 5 steps: 5 pending/);
    expect((await agent.ok('todo', { index: '2', status: 'in_progress' })).text).toMatch(/^Step 2 is in_progress\./);
    const failed = await agent.ok('todo', { index: 2, status: 'failed' });
    expect(failed.text).toMatch(/^Step 2 is failed\. 5 steps: 4 pending, 0 in_progress, 0 done, 1 failed, 0 dropped\./);
    expect(failed.text).toContain('Tip: give failed a validation');
    expect(await agent.refused('todo', { index: 3, status: 'done' })).toContain('validation_required');
    expect(await agent.refused('todo', { index: 9, status: 'done', validation: 'ran it' })).toContain('the plan has 5 steps, so index must be from 1 to 5');
    expect(await agent.refused('todo', { index: 'second', status: 'done' })).toMatch(/^Error: `index` must be a whole number, not "second"\./);
    expect(await agent.refused('todo', { index: 1, status: 'finished' })).toContain('Use one of: pending, in_progress, done, failed, dropped.');
    expect(await agent.refused('todo', { op: 'redo' })).toContain('Valid ops: set, add, update, view, clear.');
    expect(await agent.refused('plan_tasks', { tasks: [] })).toBe('Error: there is no tool "plan_tasks" on this connection. Its tools are: todo.');
    // A misspelt argument is named, never dropped (dropped, it would write a plan of 0 steps), and a set needs its list.
    expect(await agent.refused('todo', { op: 'set', steps: ['Reproduce the bug', 'Fix it'] })).toMatch(
      /^Error: `steps` is not an argument of todo: its arguments are op, index, status, validation, tasks, session_key\. Nothing was recorded\. Example: /,
    );
    expect(await agent.refused('todo', { op: 'set' })).toBe(
      'Error: set needs tasks: the whole list of steps, e.g. {"op": "set", "tasks": ["Reproduce the bug", "Fix it"]}. To empty the plan, send {"op": "clear"}.',
    );
    const cleared = await agent.ok('todo', { op: 'clear' });
    expect(cleared.text).toMatch(/^Cleared the plan \(5 steps\)\. There is no plan until \{"op": "set", "tasks": \[\.\.\.\]\} writes one\./);
    speaksOnlyItsOwnWords('step-ops', [...agent.refusals, cleared.text, failed.text, added.text]);
    await agent.close();
  });

  it('whole-list: still refuses repeats, 200 todos of 500 characters, plain-text [[#12]], a todo without status in its words', SPAWNS, async () => {
    const agent = await connectTo(connect, 'whole-list');
    const todos = Array.from({ length: 200 }, (_, i) => ({ content: i === 0 ? 'w'.repeat(500) : `Todo ${i + 1}`, status: 'pending' }));
    expect((await agent.ok('todo_write', { todos })).text).toBe('Updated todo list: 200 pending, 0 in progress, 0 completed.');
    expect(await agent.refused('todo_write', { todos: [...todos, { content: 'One more', status: 'pending' }] })).toBe(
      'Error: invalid todos: a list holds at most 200 todos (got 201)',
    );
    expect(await agent.refused('todo_write', { todos: [{ content: 'w'.repeat(501), status: 'pending' }] })).toContain(
      'invalid todo: `content` of todo 1 is 501 characters; keep it to 500',
    );
    const plain = await agent.ok('todo_write', { todos: [{ content: 'Answer [[#12]] on the thread', status: 'in_progress' }] });
    expect(plain.data.todos).toEqual([{ content: 'Answer [[#12]] on the thread', status: 'in_progress' }]);
    expect(await agent.refused('todo_write', { todos: [{ content: 'Run the tests', status: 'pending' }, { content: 'Run the tests', status: 'pending' }] }))
      .toBe('Error: invalid todos: duplicate content "Run the tests"');
    expect(await agent.refused('todo_write', { todos: [{ content: 'Read the code' }] })).toMatch(
      /^Error: invalid todo: `status` must be one of pending, in_progress, completed \(todo 1 has none\)/,
    );
    expect(await agent.refused('todo_write', { todos: [{ status: 'pending' }] })).toMatch(/^Error: invalid todo: `content` must be a non-empty string/);
    expect(await agent.refused('todo_write', { todos: [{ content: 'Read', status: 'done' }] })).toContain('(got "done")');
    expect(await agent.refused('todo_write', { todos: [{ content: '   ', status: 'pending' }] })).toBe(
      'Error: invalid todo: `content` must be a non-empty string',
    );
    expect(await agent.refused('todo', { op: 'view' })).toBe('Error: there is no tool "todo" on this connection. Its tools are: todo_write.');
    speaksOnlyItsOwnWords('whole-list', agent.refusals);
    await agent.close();
  });

  it('every tool of every set carries its title and the three hints, and a uid sent as a number is read as meant', SPAWNS, async () => {
    const listed = [];
    for (const tools of ['whole-list,knowledge-base', 'step-ops', 'plan-and-finish']) {
      const agent = await connectTo(connect, tools);
      listed.push(...(await agent.client.listTools()).tools);
      if (tools.includes('knowledge-base')) {
        const task = await agent.ok('task', { title: 'Ship the importer', goal: 'Imports run nightly.', items: 'Write the parser\nSchedule it', domain: 'acme/import' });
        const read = await agent.ok('task_read', { uid: Number(task.data.uid), collection: 'items' });
        expect(read.text).toContain('Write the parser');
        expect(await agent.refused('task_read', { uid: task.data.uid })).toMatch(/^Error: `collection` is missing: send a string\./);
      }
      await agent.close();
    }
    expect(listed.map((tool) => tool.name).sort()).toEqual([
      'add_task', 'edit_memory', 'finish', 'get_memory', 'list_by_domain', 'must_read', 'plan_tasks', 'remember', 'search', 'task',
      'task_add', 'task_claim', 'task_comment', 'task_item', 'task_next', 'task_note', 'task_read', 'task_ready', 'todo', 'todo_write', 'update_task',
    ]);
    for (const tool of listed) {
      const hints = tool.annotations ?? {};
      expect(hints.title, tool.name).toBe(tool.title);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint'] as const) expect(typeof hints[hint], `${tool.name} ${hint}`).toBe('boolean');
    }
    const byName = new Map(listed.map((tool) => [tool.name, tool.annotations!]));
    for (const read of ['task_read', 'task_ready', 'get_memory', 'list_by_domain', 'must_read', 'search']) expect(byName.get(read)!.readOnlyHint, read).toBe(true);
    for (const write of ['todo_write', 'todo', 'plan_tasks', 'update_task', 'add_task', 'finish', 'task', 'task_item', 'task_claim', 'task_next']) {
      expect(byName.get(write)!.readOnlyHint, write).toBe(false);
    }
    expect(byName.get('todo_write')!.destructiveHint).toBe(true);
    expect(byName.get('plan_tasks')!.destructiveHint).toBe(false);
  });
});
