import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { readSession } from '../fixtures/sessions.js';
import { connectMcp, refusedByTool, type McpTestClient } from '../fixtures/mcp.js';

/** The step-ops set (todo): ops inferred or named, statuses, validation, through the SDK's Client. */
let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function planned(): Promise<McpTestClient> {
  const mcp = await connectMcp(server, { structured: true, tools: 'step-ops' });
  await mcp.ok('todo', { op: 'set', tasks: ['Read the code', 'Fix the bug', 'Run the tests'] });
  return mcp;
}

describe('todo', () => {
  it('views "No plan set for this session." before a plan, and sets one from tasks alone (op inferred)', async () => {
    const mcp = await connectMcp(server, { structured: true, tools: 'step-ops' });
    expect((await mcp.ok('todo', { op: 'view' })).text).toBe('No plan set for this session.');
    const set = await mcp.ok('todo', { tasks: ['Read the code', 'Fix the bug'] });
    expect(set.data.op).toBe('set');
    expect(set.text).toContain('1. [pending] Read the code\n2. [pending] Fix the bug');
    expect((await readSession(server, set.data.sessionId)).rules.noteRequiredFor).toEqual(['DONE']);
    await mcp.close();
  });

  it('reads index with status as an update, and done with its validation shows in view', async () => {
    const mcp = await planned();
    const started = await mcp.ok('todo', { index: 1, status: 'in_progress' });
    expect(started.data.op).toBe('update');
    expect(started.text).toContain('1. [in_progress] Read the code');
    await mcp.ok('todo', { op: 'update', index: 1, status: 'done', validation: 'read src/parser.ts: the bug is in tokenize()' });
    const view = await mcp.ok('todo', { op: 'view' });
    expect(view.text).toContain('1. [done] Read the code — validation: read src/parser.ts: the bug is in tokenize()');
    expect(view.data.steps[0]).toEqual({ index: 1, text: 'Read the code', status: 'done', validation: 'read src/parser.ts: the bug is in tokenize()' });
    await mcp.close();
  });

  it('refuses done without validation with validation_required, and nothing changes', async () => {
    const mcp = await planned();
    const text = await refusedByTool(server, mcp, 'todo', { op: 'update', index: 2, status: 'done' });
    expect(text).toMatch(/^Error: validation_required: /);
    expect(await refusedByTool(server, mcp, 'todo', { index: 2, status: 'done', validation: '   ' })).toContain('validation_required');
    await mcp.close();
  });

  it('accepts failed without validation, with a tip asking for one', async () => {
    const mcp = await planned();
    const failed = await mcp.ok('todo', { index: 3, status: 'failed' });
    expect(failed.text).toContain('Tip: give failed a validation');
    expect(failed.text).toContain('3. [failed] Run the tests');
    await mcp.close();
  });

  it('refuses an unknown op and an unknown status with the valid ones, and an index out of range with n', async () => {
    const mcp = await planned();
    expect(await refusedByTool(server, mcp, 'todo', { op: 'remove', index: 1 })).toBe('Error: unknown op "remove". Valid ops: set, add, update, view, clear.');
    expect(await refusedByTool(server, mcp, 'todo', { index: 1, status: 'Done' }))
      .toBe('Error: invalid status "Done". Use one of: pending, in_progress, done, failed, dropped.');
    const out = await refusedByTool(server, mcp, 'todo', { index: 4, status: 'in_progress' });
    expect(out).toContain('the plan has 3 steps');
    expect(await refusedByTool(server, mcp, 'todo', { index: 0, status: 'in_progress' })).toContain('from 1 to 3');
    await mcp.close();
  });

  it('add appends keeping every status, needs a plan, and must be named', async () => {
    const fresh = await connectMcp(server, { structured: true, tools: 'step-ops' });
    expect(await refusedByTool(server, fresh, 'todo', { op: 'add', tasks: ['Update the changelog'] })).toContain('No plan set for this session.');
    await fresh.close();
    const mcp = await planned();
    await mcp.ok('todo', { index: 1, status: 'done', validation: 'read it' });
    const added = await mcp.ok('todo', { op: 'add', tasks: ['Update the changelog'] });
    expect(added.data.steps.map((step: { status: string }) => step.status)).toEqual(['done', 'pending', 'pending', 'pending']);
    expect(added.text).toContain('4. [pending] Update the changelog (added)');
    await mcp.close();
  });

  it('set is destructive and clear resets to no plan', async () => {
    const mcp = await planned();
    await mcp.ok('todo', { index: 1, status: 'done', validation: 'read it' });
    const reset = await mcp.ok('todo', { op: 'set', tasks: ['Start over'] });
    expect(reset.data.steps).toEqual([{ index: 1, text: 'Start over', status: 'pending', validation: null }]);
    const cleared = await mcp.ok('todo', { op: 'clear' });
    expect(cleared.text).toContain('No plan set for this session.');
    expect((await mcp.ok('todo', {})).text).toBe('No plan set for this session.');
    await mcp.close();
  });
});
