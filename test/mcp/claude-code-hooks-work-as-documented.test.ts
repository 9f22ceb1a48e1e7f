import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { READ_SESSION } from '../fixtures/documents.js';
import { textOf } from '../fixtures/mcp.js';
import { root } from '../built-server.js';

/**
 * The Claude Code recipe of docs/mcp.md, run as written (only the clone's
 * path and the server's URL put in), with the JSON Claude Code sends its
 * hooks on stdin, against a server an MCP client works through as the
 * documented `claude mcp add` line connects it: the SessionStart hook tells
 * the agent its chat's key, the agent's calls send it as session_key, the
 * UserPromptSubmit hook starts a turn, and the Stop hook hands the reminder
 * over with exit status 2 once and then lets the agent stop; and the
 * transcript variant finds the session a knowledge-base connection named.
 */
let server: TestServer;
let dir: string;
let docs: string;
const hooks = new Map<string, string>();
/** The clone's path and the server's address put into what the page says to run. */
const asHere = (text: string) => text.replaceAll('/path/to/taskbase', root).replaceAll('http://127.0.0.1:4000/graphql', server.url).replaceAll('http://127.0.0.1:4000/', `${server.app.server.url}/`);
beforeAll(async () => {
  server = await startTestServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-hooks-'));
  docs = fs.readFileSync(path.join(root, 'docs/mcp.md'), 'utf8');
  for (const [, name, body] of docs.matchAll(/<!-- hook: ([\w.-]+) -->\n```sh\n([\s\S]*?)```/g)) {
    const file = path.join(dir, name!);
    fs.writeFileSync(file, asHere(body!), { mode: 0o755 });
    hooks.set(name!, file);
  }
});

type Ran = { code: number | null; stdout: string; stderr: string };

/** Runs a command line as Claude Code runs a hook's "command": through the shell, the event's JSON on stdin. */
function command(line: string, input: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', line], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** The .claude/settings.json of docs/mcp.md: each event's one command. */
function settingsHooks(): Record<string, string> {
  const block = /<!-- settings: claude-hook -->\n```json\n([\s\S]*?)```/.exec(docs)?.[1];
  if (!block) throw new Error('docs/mcp.md has no <!-- settings: claude-hook --> block');
  const settings = JSON.parse(block) as { hooks: Record<string, { hooks: { type: string; command: string }[] }[]> };
  return Object.fromEntries(Object.entries(settings.hooks).map(([event, [entry]]) => {
    expect(entry!.hooks).toHaveLength(1);
    expect(entry!.hooks[0]!.type).toBe('command');
    return [event, asHere(entry!.hooks[0]!.command)];
  }));
}
afterAll(async () => {
  await server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function hook(name: string, input: Record<string, unknown>): Promise<Ran> {
  const file = hooks.get(name);
  if (!file) throw new Error(`docs/mcp.md has no hook ${name}`);
  return command(`sh ${file}`, JSON.stringify(input));
}

async function connectAgent(transport: StreamableHTTPClientTransport | StdioClientTransport) {
  const client = new Client({ name: 'claude-code-like', version: '1.0.0' });
  await client.connect(transport);
  return { client, call: async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult };
}

function agent(query: string, headers: Record<string, string> = {}) {
  return connectAgent(new StreamableHTTPClientTransport(new URL(`/mcp${query}`, server.app.server.url), { requestInit: { headers } }));
}

/** The agent as the page's `claude mcp add` line connects it: over HTTP, or over stdio with the command after `--`. */
function documentedAgent(transport: 'http' | 'stdio') {
  if (transport === 'http') {
    const url = /claude mcp add --transport http taskbase "([^"]+)"\n/.exec(docs)?.[1];
    if (!url) throw new Error('docs/mcp.md has no claude mcp add --transport http line');
    return connectAgent(new StreamableHTTPClientTransport(new URL(asHere(url))));
  }
  const line = /`claude mcp add --transport stdio taskbase -- ([^`]+)`/.exec(docs)?.[1];
  if (!line) throw new Error('docs/mcp.md has no claude mcp add --transport stdio line');
  const [program, ...args] = asHere(line).split(' ');
  expect(program).toBe('node');
  return connectAgent(new StdioClientTransport({ command: process.execPath, args, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' }, stderr: 'pipe' }));
}

const SPAWNS = { timeout: 120_000 };

describe('the Claude Code hooks in docs/mcp.md', () => {
  it.each(['http', 'stdio'] as const)(
    'over %s: SessionStart tells the agent its key, its calls send it, UserPromptSubmit starts a turn and Stop reminds once',
    SPAWNS,
    async (transport) => {
      expect([...hooks.keys()]).toEqual(['taskbase-stop-from-transcript.sh']);
      const run = settingsHooks();
      expect(Object.keys(run)).toEqual(['SessionStart', 'UserPromptSubmit', 'Stop']);
      const chat = `0f9e6c2a-${transport}-4d1b-9a77-claude`;
      const event = (name: string, extra: Record<string, unknown> = {}) =>
        JSON.stringify({ session_id: chat, transcript_path: path.join(dir, `${chat}.jsonl`), cwd: dir, hook_event_name: name, ...extra });

      const started = await command(run.SessionStart!, event('SessionStart', { source: 'startup' }));
      expect(started).toEqual({
        code: 0, stderr: '',
        stdout: `taskbase: this chat's session key is "${chat}". Pass session_key "${chat}" in every taskbase tool call, so the chat's list continues across reconnects.\n`,
      });
      const key = /session_key "([^"]+)"/.exec(started.stdout)![1]!;
      // Before the agent's first call the chat has no session: the hooks do nothing, and say nothing.
      expect(await command(run.UserPromptSubmit!, event('UserPromptSubmit', { prompt: 'Fix the badge' }))).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(await command(run.Stop!, event('Stop', { stop_hook_active: false }))).toEqual({ code: 0, stdout: '', stderr: '' });

      const agentChat = await documentedAgent(transport);
      const written = await agentChat.call('todo_write', { session_key: key, todos: [{ content: 'Fix the badge', status: 'in_progress' }] });
      expect(written.isError).toBeFalsy();
      // The documented configs ask for no structured output: the session the key names is found as a hook finds it.
      const sessionId = (await server.app.services.sessionReader.sessionIdForKey(null, key))!;
      expect(sessionId).toEqual(expect.any(String));
      await agentChat.call('task', { session_key: key, title: `Ship the cart badge (${transport})`, goal: 'The badge counts items.', items: 'Count the items\nShow the badge', domain: `acme/shop-${transport}` });
      expect((await server.ok(READ_SESSION, { id: sessionId })).session).toMatchObject({ turn: 0, standingPlan: { id: expect.any(String) } });

      expect(await command(run.UserPromptSubmit!, event('UserPromptSubmit', { prompt: 'Go on' }))).toEqual({ code: 0, stdout: '', stderr: '' });
      expect((await server.ok(READ_SESSION, { id: sessionId })).session).toMatchObject({ turn: 1, standingPlan: null });

      const stop = await command(run.Stop!, event('Stop', { stop_hook_active: false }));
      expect(stop.code).toBe(2);
      expect(stop.stdout).toBe('');
      expect(stop.stderr).toContain(`Before you stop: 1 open task in acme/shop-${transport} may be out of date.`);
      expect(stop.stderr).toContain(`- Ship the cart badge (${transport})`);
      expect(await command(run.Stop!, event('Stop', { stop_hook_active: true }))).toEqual({ code: 0, stdout: '', stderr: '' });
      await agentChat.client.close();

      // The chat reopened (a new connection, as after claude --resume): its key finds the same list.
      const reopened = await documentedAgent(transport);
      const again = await reopened.call('todo_write', { session_key: key, todos: [{ content: 'Fix the badge', status: 'completed' }] });
      expect(again.isError).toBeFalsy();
      expect(await server.app.services.sessionReader.sessionIdForKey(null, key)).toBe(sessionId);
      expect((await server.ok(READ_SESSION, { id: sessionId })).session.plan.items.nodes.map((item: { state: string }) => item.state)).toEqual(['DONE']);
      await reopened.client.close();
    },
  );

  it('never blocks the chat: another event, input that is not the hook\'s JSON, or a bad session_id is one line on stderr and exit 0', SPAWNS, async () => {
    const line = settingsHooks().Stop!;
    for (const [input, said] of [
      ['not json', /^taskbase claude-hook: stdin is not JSON; Claude Code sends each hook its event as JSON/],
      [JSON.stringify({ session_id: 'c1', hook_event_name: 'PreToolUse' }), /^taskbase claude-hook: "PreToolUse" is not an event it takes; run it for SessionStart, UserPromptSubmit and Stop/],
      [JSON.stringify({ hook_event_name: 'Stop' }), /^taskbase claude-hook: the hook's JSON has no session_id/],
      [JSON.stringify({ session_id: 'a\u0007b', hook_event_name: 'Stop' }), /^taskbase claude-hook: The session key sent .* send 1 to 128 visible characters/],
    ] as const) {
      const ran = await command(line, input);
      expect(ran.code).toBe(0);
      expect(ran.stdout).toBe('');
      expect(ran.stderr).toMatch(said);
      expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('find a keyless connection\'s session in the transcript, and remind it', SPAWNS, async () => {
    const chat = await agent('?tools=knowledge-base');
    const first = await chat.call('must_read', { domain: 'acme/ops' });
    await chat.call('task', { title: 'Rotate the keys', goal: 'No key is older than 90 days.', items: 'List the keys', domain: 'acme/ops' });
    // Claude Code's transcript: one JSON line per message, tool results among them.
    const transcript = path.join(dir, 'transcript.jsonl');
    fs.writeFileSync(transcript, [
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'What is open in ops?' } }),
      JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: textOf(first) }] }] } }),
    ].join('\n') + '\n');
    const stop = await hook('taskbase-stop-from-transcript.sh', { session_id: 'claude-2', transcript_path: transcript, hook_event_name: 'Stop', stop_hook_active: false });
    expect(stop.code).toBe(2);
    expect(stop.stderr).toContain('- Rotate the keys');
    await chat.client.close();
  });
});
