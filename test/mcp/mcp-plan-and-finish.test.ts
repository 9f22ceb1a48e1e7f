import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { UPDATE_ITEM, WRITE_TODOS } from '../fixtures/documents.js';
import { readSession } from '../fixtures/sessions.js';
import { connectMcp, refusedByTool, type McpTestClient } from '../fixtures/mcp.js';

/** The plan-and-finish set: written once, ids that stay, reasons for gaps, finish held to the list. */
let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function planned(tasks = ['Reproduce the crash', 'Fix the parser', 'Run the suite']): Promise<McpTestClient> {
  const mcp = await connectMcp(server, { structured: true, tools: 'plan-and-finish' });
  await mcp.ok('plan_tasks', { tasks });
  return mcp;
}

describe('plan_tasks', () => {
  it('writes the list once, skipping blank entries, with the glyph table and a status line', async () => {
    const mcp = await connectMcp(server, { structured: true, tools: 'plan-and-finish' });
    const written = await mcp.ok('plan_tasks', { tasks: ['Reproduce the crash', '  ', '', 'Fix the parser'] });
    expect(written.text).toBe('[ ] 1. Reproduce the crash\n[ ] 2. Fix the parser');
    expect(written.data.statusLine).toBe('0/2 · Reproduce the crash');
    const session = await readSession(server, written.data.sessionId);
    expect(session.rules).toMatchObject({ planOnce: true, minItems: 2, maxItems: 20, maxNoteLength: 400, noteRequiredFor: ['BLOCKED', 'DROPPED'] });
    const again = await refusedByTool(server, mcp, 'plan_tasks', { tasks: ['Something else', 'And more'] });
    expect(again).toContain('update_task');
    expect(again).toContain('add_task');
    await mcp.close();
  });

  it('refuses fewer than 2, more than 20, and a task over 160 characters, recording nothing', async () => {
    const mcp = await connectMcp(server, { structured: true, tools: 'plan-and-finish' });
    await mcp.sessionId();
    expect(await refusedByTool(server, mcp, 'plan_tasks', { tasks: ['Only one', ' '] })).toContain('give at least 2 tasks (got 1)');
    expect(await refusedByTool(server, mcp, 'plan_tasks', { tasks: Array.from({ length: 21 }, (_, i) => `Task ${i + 1}`) }))
      .toContain('21 tasks is too many; the limit is 20.');
    const long = await refusedByTool(server, mcp, 'plan_tasks', { tasks: ['Short', 'x'.repeat(161)] });
    expect(long).toContain('task 2 is 161 characters');
    expect(long).toContain('160');
    await mcp.close();
  });
});

describe('update_task and add_task', () => {
  it('keeps ids across an insertion, marks added tasks, and keeps notes to 400 characters', async () => {
    const mcp = await planned();
    const added = await mcp.ok('add_task', { text: 'Add a regression test', after_id: 1 });
    expect(added.text).toBe('[ ] 1. Reproduce the crash\n[ ] 4. Add a regression test (added mid-session)\n[ ] 2. Fix the parser\n[ ] 3. Run the suite');
    const atEnd = await mcp.ok('add_task', { text: 'Write it up', after_id: 99 });
    expect(atEnd.data.tasks.at(-1)).toEqual({ id: 5, text: 'Write it up', status: 'pending', note: null, added: true });
    await mcp.ok('update_task', { task_id: 1, status: 'in_progress' });
    expect((await mcp.ok('update_task', { task_id: 1, status: 'done' })).data.statusLine).toBe('1/5 · Add a regression test');
    const reason = 'The vendor API is down. '.repeat(30);
    const blocked = await mcp.ok('update_task', { task_id: 2, status: 'blocked', note: reason });
    expect(blocked.data.tasks.find((task: { id: number }) => task.id === 2).note).toBe(reason.trim().slice(0, 400).trim());
    expect(blocked.text).toContain('[!] 2. Fix the parser - The vendor API is down.');
    await mcp.close();
  });

  it('refuses blocked or dropped without a reason, an unknown task id with the known ones, and an unknown status', async () => {
    const mcp = await planned();
    expect(await refusedByTool(server, mcp, 'update_task', { task_id: 2, status: 'blocked' })).toContain('needs a reason');
    expect(await refusedByTool(server, mcp, 'update_task', { task_id: 3, status: 'dropped', note: '  ' })).toContain('needs a reason');
    expect(await refusedByTool(server, mcp, 'update_task', { task_id: 9, status: 'done' })).toContain('there is no task 9. The tasks are: 1, 2, 3.');
    expect(await refusedByTool(server, mcp, 'update_task', { task_id: 1, status: 'finished' })).toContain('Use pending, in_progress, done, blocked or dropped.');
    await mcp.close();
  });

  it('allows at most 20 tasks in all, and needs a plan first', async () => {
    const fresh = await connectMcp(server, { structured: true, tools: 'plan-and-finish' });
    expect(await refusedByTool(server, fresh, 'add_task', { text: 'Something' })).toContain('call plan_tasks first');
    expect(await refusedByTool(server, fresh, 'update_task', { task_id: 1, status: 'done' })).toContain('call plan_tasks first');
    await fresh.close();
    const mcp = await planned(Array.from({ length: 20 }, (_, i) => `Task ${i + 1}`));
    expect(await refusedByTool(server, mcp, 'add_task', { text: 'One too many' })).toContain('already 20 tasks');
    await mcp.close();
  });
});

describe('finish', () => {
  it('is refused before any plan, and while tasks are open (counted and listed); accepted once each is settled, with the summary', async () => {
    const mcp = await connectMcp(server, { structured: true, tools: 'plan-and-finish' });
    expect(await refusedByTool(server, mcp, 'finish', {})).toContain('Call plan_tasks first and say what you intend to do.');
    await mcp.ok('plan_tasks', { tasks: ['Reproduce the crash', 'Fix the parser', 'Run the suite'] });
    await mcp.ok('update_task', { task_id: 1, status: 'done' });
    const open = await refusedByTool(server, mcp, 'finish', {});
    expect(open).toContain('2 of 3 tasks are still open:\n  2. Fix the parser (pending)\n  3. Run the suite (pending)');
    expect(open).toContain('blocked or dropped with the reason');
    await mcp.ok('update_task', { task_id: 2, status: 'done' });
    await mcp.ok('update_task', { task_id: 3, status: 'dropped', note: 'No CI runner in this sandbox.' });
    const done = await mcp.ok('finish', {});
    expect(done.text).toBe('3 tasks: 2 done, 1 dropped.\n\n[x] 1. Reproduce the crash\n[x] 2. Fix the parser\n[-] 3. Run the suite - No CI runner in this sandbox.');
    expect(done.data).toMatchObject({ summary: '3 tasks: 2 done, 1 dropped.', statusLine: '3/3 · wrapping up' });
    expect((await readSession(server, done.data.sessionId)).finishedAt).not.toBeNull();
    await mcp.close();
  });
});

describe('the rules hold beyond this set', () => {
  it('the same session over GraphQL can neither rewrite the list nor drop a task without a reason', async () => {
    const mcp = await planned();
    const sessionId = (await mcp.sessionId())!;
    const plan = (await readSession(server, sessionId)).plan;
    const rewrite = await server.refused(WRITE_TODOS, { todos: [{ content: 'Reproduce the crash', status: 'DONE' }] }, { session: sessionId });
    expect(rewrite.code).toBe('PLAN_LOCKED');
    const drop = await server.refused(UPDATE_ITEM, { input: { id: plan.items.nodes[1].id, state: 'DROPPED' } }, { session: sessionId });
    expect(drop.code).toBe('NOTE_REQUIRED');
    await mcp.close();
  });

  it('another set joined to the session cannot rewrite the list or settle a step without its note either', async () => {
    const mcp = await planned();
    const sessionId = (await mcp.sessionId())!;
    const whole = await connectMcp(server, { structured: true, tools: 'whole-list', sessionId });
    const rewrite = await refusedByTool(server, whole, 'todo_write', { todos: [{ content: 'Reproduce the crash', status: 'completed' }] });
    expect(rewrite).toContain('written once');
    const steps = await connectMcp(server, { structured: true, tools: 'step-ops', sessionId });
    expect(await refusedByTool(server, steps, 'todo', { op: 'set', tasks: ['Start over'] })).toContain('written once');
    expect(await refusedByTool(server, steps, 'todo', { index: 2, status: 'dropped' })).toContain('validation_required');
    for (const client of [mcp, whole, steps]) await client.close();
  });

  it('a step-ops session joined by the whole-list tool still needs the validation to complete a step', async () => {
    const steps = await connectMcp(server, { structured: true, tools: 'step-ops' });
    await steps.ok('todo', { tasks: ['Read the code'] });
    const whole = await connectMcp(server, { structured: true, tools: 'whole-list', sessionId: (await steps.sessionId())! });
    const text = await refusedByTool(server, whole, 'todo_write', { todos: [{ content: 'Read the code', status: 'completed' }] });
    expect(text).toContain('marking todo 1 "Read the code" completed needs a reason');
    for (const client of [steps, whole]) await client.close();
  });
});
