import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';
import { READ_SESSION } from './fixtures/documents.js';
import { textOf } from './fixtures/mcp.js';
import { root } from './built-server.js';

/**
 * The Claude Code hooks of docs/mcp.md, run as written (only the clone's path
 * and the server's URL put in), with the JSON Claude Code sends them on
 * stdin, against a server an MCP client works through: the turn hook starts
 * a turn, the stop hook hands the reminder over with exit status 2 once and
 * then lets the agent stop, and the transcript variant finds the session a
 * knowledge-base connection named.
 */
let server: TestServer;
let dir: string;
const hooks = new Map<string, string>();
beforeAll(async () => {
  server = await startTestServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-hooks-'));
  const docs = fs.readFileSync(path.join(root, 'docs/mcp.md'), 'utf8');
  for (const [, name, body] of docs.matchAll(/<!-- hook: ([\w.-]+) -->\n```sh\n([\s\S]*?)```/g)) {
    const file = path.join(dir, name!);
    fs.writeFileSync(file, body!.replaceAll('/path/to/taskbase', root).replaceAll('http://127.0.0.1:4000/graphql', server.url), { mode: 0o755 });
    hooks.set(name!, file);
  }
});
afterAll(async () => {
  await server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function hook(name: string, input: Record<string, unknown>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const file = hooks.get(name);
  if (!file) throw new Error(`docs/mcp.md has no hook ${name}`);
  return new Promise((resolve, reject) => {
    const child = spawn('sh', [file], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(JSON.stringify(input));
  });
}

async function agent(query: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'claude-code-like', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`/mcp${query}`, server.app.server.url), { requestInit: { headers } }));
  return { client, call: async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult };
}

const SPAWNS = { timeout: 120_000 };

describe('the Claude Code hooks in docs/mcp.md', () => {
  it('start a turn on each prompt, and remind once at the stop, for the chat key the MCP connection sends', SPAWNS, async () => {
    expect([...hooks.keys()].sort()).toEqual(['taskbase-stop-from-transcript.sh', 'taskbase-stop.sh', 'taskbase-turn.sh']);
    const chat = await agent('?tools=whole-list,knowledge-base', { 'x-session-key': 'acme-shop' });
    const written = await chat.call('todo_write', { todos: [{ content: 'Fix the badge', status: 'in_progress' }] });
    const sessionId = (written.structuredContent as { sessionId: string }).sessionId;
    await chat.call('task', { title: 'Ship the cart badge', goal: 'The badge counts items.', items: 'Count the items\nShow the badge', domain: 'acme/shop' });

    const turn = await hook('taskbase-turn.sh', { session_id: 'claude-1', hook_event_name: 'UserPromptSubmit', prompt: 'Go on' });
    expect(turn).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await server.ok(READ_SESSION, { id: sessionId })).session).toMatchObject({ turn: 1, standingPlan: null });

    const stop = await hook('taskbase-stop.sh', { session_id: 'claude-1', hook_event_name: 'Stop', stop_hook_active: false });
    expect(stop.code).toBe(2);
    expect(stop.stderr).toContain('Before you stop: 1 open task in acme/shop may be out of date.');
    expect(stop.stderr).toContain('- Ship the cart badge');
    const again = await hook('taskbase-stop.sh', { session_id: 'claude-1', hook_event_name: 'Stop', stop_hook_active: true });
    expect(again).toEqual({ code: 0, stdout: '', stderr: '' });
    await chat.client.close();
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
