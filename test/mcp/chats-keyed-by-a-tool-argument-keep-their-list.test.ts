import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { READ_SESSION } from '../fixtures/documents.js';
import { databaseState } from '../fixtures/nothing-recorded.js';
import { textOf } from '../fixtures/mcp.js';

/**
 * A chat whose connection carries no key (Claude Code's MCP config is the
 * same for every chat) names itself by the session_key argument every tool
 * takes, through the SDK's client over Streamable HTTP at /mcp and over
 * stdio (the built `taskbase mcp --url`): the list written under a key is
 * there again on the next connection; a new key moves the connection to
 * that chat (Claude Code keeps its connection across /clear and /resume); a
 * key no chat can have, or one naming another chat on a connection joined
 * by id, is refused in the set's words and records nothing; and the key is
 * bound once per connection, not looked up per call.
 */
const CLI = path.resolve('dist/src/cli.js');
const SPAWNS = { timeout: 180_000 };

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

interface Agent {
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** A call that must be refused with "Error: ", recording nothing: its text. */
  refused(name: string, args: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

async function agentOver(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Agent> {
  const client = new Client({ name: 'keyless-chat', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    call,
    refused: async (name, args) => {
      const before = await databaseState(server);
      const result = await call(name, args);
      const text = textOf(result);
      expect(result.isError, text).toBe(true);
      expect(text).toMatch(/^Error: /);
      expect(await databaseState(server), `${name} refused but changed a row`).toEqual(before);
      return text;
    },
    close: () => client.close(),
  };
}

/** Agents here ask for structured output (?structured=1, --structured): their answers carry the session's id as data. */
type Connect = (tools: string) => Promise<Agent>;
const overHttp: Connect = (tools) => agentOver(new StreamableHTTPClientTransport(new URL(`/mcp?tools=${tools}&structured=1`, server.app.server.url)));
const overStdio: Connect = (tools) =>
  agentOver(new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--url', `${server.app.server.url}/graphql`, '--tools', tools, '--structured'],
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' },
    stderr: 'pipe',
  }));

const sessionIdOf = (result: CallToolResult) => (result.structuredContent as { sessionId: string }).sessionId;
async function stepsOf(id: string): Promise<string[]> {
  const session = (await server.ok(READ_SESSION, { id })).session as { plan: { items: { nodes: { text: string; state: string }[] } } | null };
  return (session.plan?.items.nodes ?? []).map((step) => `${step.text}:${step.state}`);
}

/** Words of GraphQL and of the other sets that a set's refusal must not use (as test/mcp/mcp-plan-sets-speak-their-own-words.test.ts). */
const GRAPHQL_WORDS = /\b(writeTodos|setPlan|addSteps|updateStep|clearPlan|finishSession|startSession|session|sessions|PENDING|IN_PROGRESS|DONE|FAILED|BLOCKED|DROPPED)\b/;
const FOREIGN: Record<string, RegExp> = {
  'whole-list': /\b(plan_tasks|update_task|add_task|task_item|done|failed|dropped|blocked|validation)\b|"op"/,
  'step-ops': /\b(todo_write|plan_tasks|update_task|add_task|task_id|task_item|completed|blocked)\b/,
  'plan-and-finish': /\b(todo_write|todo|task_item|failed|completed|validation(_required)?)\b|"op"/,
  'knowledge-base': /\b(todo_write|plan_tasks|update_task|add_task|validation|in_progress|completed|blocked|failed)\b/,
};

function inItsWords(set: string, text: string): void {
  expect(text, `${set} refused in GraphQL's words`).not.toMatch(GRAPHQL_WORDS);
  expect(text, `${set} refused in another set's words`).not.toMatch(FOREIGN[set]!);
}

describe.each([
  ['Streamable HTTP', overHttp, 'http'],
  ['stdio (taskbase mcp --url)', overStdio, 'stdio'],
] as const)('session_key over %s', (_transport, connect, tag) => {
  it('keeps a whole-list and a step-ops list across reconnects, and a new key moves the connection to that chat', SPAWNS, async () => {
    const key = `claude-chat-${tag}-5b1c2e7a`;
    const first = await connect('whole-list,knowledge-base');
    const written = await first.call('todo_write', { session_key: key, todos: [{ content: 'Read the failing test', status: 'completed' }, { content: 'Fix the parser', status: 'in_progress' }] });
    expect(written.isError, textOf(written)).toBeFalsy();
    const sessionId = sessionIdOf(written);
    // A chat found by its key is known to its hooks: the knowledge-base answer says no session id.
    const read = await first.call('must_read', { session_key: key, domain: `keyed/${tag}` });
    expect(textOf(read)).toBe(`No open tasks in keyed/${tag}.`);
    expect(sessionIdOf(read)).toBe(sessionId);
    await first.close();

    const again = await connect('whole-list,knowledge-base');
    const rewritten = await again.call('todo_write', { session_key: key, todos: [{ content: 'Read the failing test', status: 'completed' }, { content: 'Fix the parser', status: 'completed' }] });
    expect(sessionIdOf(rewritten)).toBe(sessionId);
    expect(await stepsOf(sessionId)).toEqual(['Read the failing test:DONE', 'Fix the parser:DONE']);
    // The chat changed under the connection (/clear): its new key has a list of its own, and the old one is untouched.
    const cleared = `${key}-after-clear`;
    const other = await again.call('todo_write', { session_key: cleared, todos: [{ content: 'A new question', status: 'in_progress' }] });
    expect(other.isError, textOf(other)).toBeFalsy();
    expect(sessionIdOf(other)).not.toBe(sessionId);
    expect(await stepsOf(sessionIdOf(other))).toEqual(['A new question:IN_PROGRESS']);
    expect(await stepsOf(sessionId)).toEqual(['Read the failing test:DONE', 'Fix the parser:DONE']);
    // Without a key the connection goes on with the chat it moved to; the first key brings the first list back.
    expect(sessionIdOf(await again.call('todo_write', { todos: [{ content: 'A new question', status: 'completed' }] }))).toBe(sessionIdOf(other));
    expect(sessionIdOf(await again.call('must_read', { session_key: key, domain: `keyed/${tag}` }))).toBe(sessionId);
    await again.close();

    const stepKey = `chat-step-ops-${tag}`;
    const stepper = await connect('step-ops');
    await stepper.call('todo', { session_key: stepKey, tasks: ['Reproduce the crash', 'Fix it'] });
    await stepper.call('todo', { session_key: stepKey, index: 1, status: 'done', validation: 'crash seen in test/crash.test.ts' });
    await stepper.close();
    const stepperAgain = await connect('step-ops');
    const view = await stepperAgain.call('todo', { session_key: stepKey, op: 'view' });
    expect(textOf(view)).toMatch(/Reproduce the crash[\s\S]*crash seen in test\/crash\.test\.ts[\s\S]*Fix it/);
    await stepperAgain.close();
  });

  it('keeps a plan-and-finish list across reconnects, and refuses a key no chat can have with the header\'s words', SPAWNS, async () => {
    const planKey = `chat-plan-and-finish-${tag}`;
    const planner = await connect('plan-and-finish');
    for (const [raw, problem] of [['', 'empty'], ['k'.repeat(129), '129 characters'], ['a\u200Bb', '3 characters with a control or invisible character in it']] as const) {
      const text = await planner.refused('plan_tasks', { session_key: raw, tasks: ['Write the migration', 'Run it on a copy'] });
      expect(text).toBe(`Error: \`session_key\` is ${problem}; send 1 to 128 visible characters that name this chat, such as the client's own id for this chat.`);
      inItsWords('plan-and-finish', text);
    }
    // A refused key bound nothing: the chat's key still chooses the connection's list.
    await planner.call('plan_tasks', { session_key: planKey, tasks: ['Write the migration', 'Run it on a copy'] });
    await planner.close();
    const plannerAgain = await connect('plan-and-finish');
    const moved = await plannerAgain.call('update_task', { session_key: planKey, task_id: 1, status: 'in_progress' });
    expect(textOf(moved)).toContain('[~] 1. Write the migration');
    expect(textOf(moved)).toContain('[ ] 2. Run it on a copy');
    await plannerAgain.close();
  });
});

describe('session_key on a connection that already has its session', () => {
  it('is given to the session an earlier keyless call started when it names none yet, moves it to the chat it names otherwise, and is refused only beside an id', async () => {
    const taken = await overHttp('whole-list');
    const theirs = sessionIdOf(await taken.call('todo_write', { session_key: 'taken-key', todos: [{ content: 'Theirs', status: 'pending' }] }));
    await taken.close();

    const late = await overHttp('whole-list');
    const own = sessionIdOf(await late.call('todo_write', { todos: [{ content: 'Started without a key', status: 'in_progress' }] }));
    expect(sessionIdOf(await late.call('todo_write', { session_key: 'late-key', todos: [{ content: 'Started without a key', status: 'completed' }] }))).toBe(own);
    expect(sessionIdOf(await late.call('todo_write', { session_key: 'taken-key', todos: [{ content: 'Theirs', status: 'in_progress' }] }))).toBe(theirs);
    await late.close();

    const reopened = await overHttp('whole-list');
    expect(sessionIdOf(await reopened.call('todo_write', { session_key: 'late-key', todos: [{ content: 'Started without a key', status: 'completed' }] }))).toBe(own);
    await reopened.close();
    expect(await stepsOf(own)).toEqual(['Started without a key:DONE']);
    expect(await stepsOf(theirs)).toEqual(['Theirs:IN_PROGRESS']);

    // A connection that joined a session by its id keeps it: a key naming another chat is refused, recording nothing.
    const joined = await agentOver(new StreamableHTTPClientTransport(new URL('/mcp?tools=whole-list&structured=1', server.app.server.url), { requestInit: { headers: { 'x-session-id': own } } }));
    const refused = await joined.refused('todo_write', { session_key: 'taken-key', todos: [{ content: 'Started without a key', status: 'pending' }] });
    expect(refused).toBe('Error: session_key "taken-key" names another chat, and this connection works for the one it connected to by id, so nothing was recorded. Leave session_key out on this connection, or connect again without the id and send the key from the first call on.');
    inItsWords('whole-list', refused.replaceAll('"taken-key"', '"…"'));
    expect(sessionIdOf(await joined.call('todo_write', { session_key: 'late-key', todos: [{ content: 'Started without a key', status: 'completed' }] }))).toBe(own);
    await joined.close();
  });

  it('binds once per connection: ten calls with the key look it up once', async () => {
    const services = server.app.services;
    const found = vi.spyOn(services.sessions, 'sessionForKey');
    const looked = vi.spyOn(services.sessionReader, 'sessionIdForKey');
    const named = vi.spyOn(services.sessions, 'nameSessionByKey');
    try {
      const agent = await overHttp('whole-list,knowledge-base');
      for (let i = 0; i < 5; i += 1) {
        await agent.call('todo_write', { session_key: 'bound-once', todos: [{ content: `Step ${i}`, status: 'pending' }] });
        await agent.call('must_read', { session_key: 'bound-once', domain: 'bound/once' });
      }
      await agent.close();
      expect(found).toHaveBeenCalledTimes(1);
      expect(looked).not.toHaveBeenCalled();
      expect(named).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
  });
});
