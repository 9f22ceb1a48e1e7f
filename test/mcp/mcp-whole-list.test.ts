import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { readSession } from '../fixtures/sessions.js';
import { connectMcp, refusedByTool } from '../fixtures/mcp.js';

/** The whole-list set (todo_write) and what every connection lists, through the SDK's Client over its in-memory transport. */
let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const SETS: Record<string, string[]> = {
  'whole-list': ['todo_write'],
  'step-ops': ['todo'],
  'plan-and-finish': ['plan_tasks', 'update_task', 'add_task', 'finish'],
  'knowledge-base': ['task', 'task_item', 'task_add', 'task_comment', 'task_note', 'task_read', 'get_memory', 'edit_memory', 'remember', 'list_by_domain', 'must_read', 'search', 'task_claim', 'task_next', 'task_ready'],
};

describe('listTools', () => {
  it('lists only the named sets, whole-list and knowledge-base by default, each tool with an input schema and an example; an output schema only when asked for', async () => {
    const byDefault = await connectMcp(server);
    expect((await byDefault.client.listTools()).tools.map((tool) => tool.name)).toEqual([...SETS['whole-list']!, ...SETS['knowledge-base']!]);
    await byDefault.close();
    for (const [set, names] of Object.entries(SETS)) {
      for (const structured of [false, true]) {
        const mcp = await connectMcp(server, { tools: set, structured });
        const { tools } = await mcp.client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(names);
        for (const tool of tools) {
          expect(tool.inputSchema.type, tool.name).toBe('object');
          expect(tool.outputSchema?.type, tool.name).toBe(structured ? 'object' : undefined);
          expect(tool.description, tool.name).toMatch(/Example: \{/);
        }
        await mcp.close();
      }
    }
  });

  it('refuses two plan sets, and an unknown set, naming the valid ones', async () => {
    await expect(connectMcp(server, { tools: 'whole-list,plan-and-finish' })).rejects.toThrow(/at most one plan set, and whole-list and plan-and-finish were named/);
    await expect(connectMcp(server, { tools: 'kanban' })).rejects.toThrow(/unknown tool set "kanban". The sets are: whole-list, step-ops, plan-and-finish, knowledge-base/);
  });
});

describe('todo_write', () => {
  it('replaces the list, keeps the item of the same trimmed text, and answers with the counts', async () => {
    const mcp = await connectMcp(server, { structured: true, tools: 'whole-list' });
    const first = await mcp.ok('todo_write', { todos: [{ content: 'Read the code', status: 'completed' }, { content: 'Fix the bug', status: 'in_progress' }, { content: 'Run the tests', status: 'pending' }] });
    expect(first.text).toBe('Updated todo list: 1 pending, 1 in progress, 1 completed.');
    const sessionId = first.data.sessionId;
    expect(sessionId).toBe(await mcp.sessionId());
    const session = await readSession(server, sessionId);
    expect(session.rules.noteRequiredFor).toEqual([]);
    const ids = session.plan.items.nodes.map((step: { id: string }) => step.id);
    const second = await mcp.ok('todo_write', { todos: [{ content: '  Fix the bug ', status: 'completed' }, { content: 'Ship it', status: 'pending' }] });
    expect(second.text).toBe('Updated todo list: 1 pending, 0 in progress, 1 completed.');
    expect(second.data.todos).toEqual([{ content: 'Fix the bug', status: 'completed' }, { content: 'Ship it', status: 'pending' }]);
    const now = await readSession(server, sessionId);
    expect(now.plan.items.nodes[0].id).toBe(ids[1]);
    await mcp.close();
  });

  it('refuses empty text, the same text twice and an unknown status, in the to-do tool\'s words, recording nothing', async () => {
    const mcp = await connectMcp(server, { structured: true, tools: 'whole-list' });
    await mcp.ok('todo_write', { todos: [{ content: 'Read the code', status: 'pending' }] });
    expect(await refusedByTool(server, mcp, 'todo_write', { todos: [{ content: 'A', status: 'pending' }, { content: ' \t', status: 'pending' }] }))
      .toBe('Error: invalid todo: `content` must be a non-empty string');
    expect(await refusedByTool(server, mcp, 'todo_write', { todos: [{ content: 'A', status: 'pending' }, { content: ' A ', status: 'completed' }] }))
      .toBe('Error: invalid todos: duplicate content "A"');
    expect(await refusedByTool(server, mcp, 'todo_write', { todos: [{ content: 'A', status: 'done' }] })).toContain('pending, in_progress, completed');
    await mcp.close();
  });

  it('with --one-active, refuses two in progress with n; off by default', async () => {
    const strict = await connectMcp(server, { structured: true, tools: 'whole-list', oneActive: true });
    const two = { todos: [{ content: 'A', status: 'in_progress' }, { content: 'B', status: 'in_progress' }, { content: 'C', status: 'in_progress' }] };
    expect(await refusedByTool(server, strict, 'todo_write', two)).toBe('Error: invalid todos: at most one task may be in_progress (got 3)');
    const relaxed = await connectMcp(server, { structured: true, tools: 'whole-list' });
    expect((await relaxed.ok('todo_write', two)).text).toBe('Updated todo list: 0 pending, 3 in progress, 0 completed.');
    await strict.close();
    await relaxed.close();
  });

  it('answers that it needs an owning session when the session it joins was never started, or the connection may only read', async () => {
    const orphan = await connectMcp(server, { structured: true, tools: 'whole-list', sessionId: 'no-such-session' });
    expect(await refusedByTool(server, orphan, 'todo_write', { todos: [{ content: 'A', status: 'pending' }] })).toBe('Error: todo_write requires an owning agent session');
    const reader = await connectMcp(server, { structured: true, tools: 'whole-list', access: 'read' });
    expect(await refusedByTool(server, reader, 'todo_write', { todos: [{ content: 'A', status: 'pending' }] })).toContain('may only read');
    await orphan.close();
    await reader.close();
  });

  it('joins a started session by id, so a hook and the MCP server share one plan', async () => {
    const first = await connectMcp(server, { structured: true, tools: 'whole-list' });
    const { data } = await first.ok('todo_write', { todos: [{ content: 'Read the code', status: 'in_progress' }] });
    const joined = await connectMcp(server, { structured: true, tools: 'whole-list', sessionId: data.sessionId });
    const again = await joined.ok('todo_write', { todos: [{ content: 'Read the code', status: 'completed' }] });
    expect(again.data.sessionId).toBe(data.sessionId);
    expect((await readSession(server, data.sessionId)).plan.items.nodes).toMatchObject([{ text: 'Read the code', state: 'DONE' }]);
    await first.close();
    await joined.close();
  });
});
