/**
 * The text rules live in the services, so a tool call over MCP gets what a
 * GraphQL mutation gets, code and words: NUL and other control characters
 * refused in every text (on PostgreSQL too, where NUL cannot be stored),
 * bidi controls refused in labels, and labels compared NFKC-folded for
 * duplicates while stored as sent. Each refusal records nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_COMMENT, ADD_ITEMS, CREATE_NOTE, CREATE_TASK, EDIT_TASK, SET_PLAN, UPDATE_ITEM, WRITE_TODOS } from '../fixtures/documents.js';
import { connectMcp, refusedByTool, type McpTestClient } from '../fixtures/mcp.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { startSession, todos } from '../fixtures/sessions.js';
import { createTask, readTask } from '../fixtures/tasks.js';

let server: TestServer;
const clients: McpTestClient[] = [];
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => {
  for (const client of clients) await client.close();
  await server?.close();
});

async function mcp(tools: string): Promise<McpTestClient> {
  const client = await connectMcp(server, { tools });
  clients.push(client);
  return client;
}

const NUL = 'NUL character (U+0000)';
const base = { goal: 'Text rules hold on every surface.', domain: 'surfaces/text' };

describe('NUL in an MCP tool input', () => {
  it('is refused by the knowledge-base tools with the code and words GraphQL gives, recording nothing', async () => {
    const kb = await mcp('knowledge-base');
    const { task, items } = await createTask(server, ['First'], { domain: base.domain });

    const title = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CREATE_TASK, { input: { ...base, title: 'Nul\u0000title', itemsText: 'A' } });
    expect(await refusedByTool(server, kb, 'task', { ...base, title: 'Nul\u0000title', items: 'A' })).toBe(`Error: ${title}`);

    const label = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CREATE_TASK, { input: { ...base, title: 'T', itemsText: 'A\nB\u0000' } });
    expect(await refusedByTool(server, kb, 'task', { ...base, title: 'T', items: 'A\nB\u0000' })).toBe(`Error: ${label}`);

    const comment = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', ADD_COMMENT, { input: { taskId: task.id, body: 'see \u0000' } });
    expect(await refusedByTool(server, kb, 'task_comment', { uid: task.id, body: 'see \u0000' })).toBe(`Error: ${comment}`);

    const body = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CREATE_NOTE, { input: { title: 'Note', body: 'b\u0000', domain: base.domain } });
    expect(await refusedByTool(server, kb, 'remember', { title: 'Note', body: 'b\u0000', domain: base.domain })).toBe(`Error: ${body}`);

    const goal = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', EDIT_TASK, { input: { id: task.id, goal: 'g\u0000' } });
    expect(await refusedByTool(server, kb, 'edit_memory', { uid: task.id, goal: 'g\u0000' })).toBe(`Error: ${goal}`);

    const rename = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', UPDATE_ITEM, { input: { id: items[0].id, text: 'Re\u0000named' } });
    expect(await refusedByTool(server, kb, 'task_item', { uid: task.id, item: items[0].id, text: 'Re\u0000named' })).toBe(`Error: ${rename}`);

    for (const [tool, args] of [
      ['task_add', { uid: task.id, items: 'Second\u0000' }],
      ['task_note', { uid: task.id, title: 'Whole', body: 'x\u0000' }],
      ['task_item', { uid: task.id, item: items[0].id, state: 'done', comment: 'ok\u0000' }],
    ] as const) {
      expect(await refusedByTool(server, kb, tool, args)).toContain(NUL);
    }
    for (const text of [title, label, comment, body, goal, rename]) expect(text).toContain(NUL);
  });

  it('is refused by each plan tool set, recording nothing', async () => {
    const session = await startSession(server);
    const step = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', WRITE_TODOS, { todos: todos(['Read\u0000', 'PENDING']) }, { session });
    expect(step).toContain(`step 1 contains a ${NUL}`);
    const wholeList = await mcp('whole-list');
    expect(await refusedByTool(server, wholeList, 'todo_write', { todos: [{ content: 'Read\u0000', status: 'pending' }] })).toBe(`Error: ${step}`);

    const set = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', SET_PLAN, { steps: ['Fine', 'Fix\u0000'] }, { session });
    const stepOps = await mcp('step-ops');
    expect(await refusedByTool(server, stepOps, 'todo', { tasks: ['Fine', 'Fix\u0000'] })).toBe(`Error: ${set}`);
    await stepOps.ok('todo', { tasks: ['Read the code'] });
    expect(await refusedByTool(server, stepOps, 'todo', { index: 1, status: 'done', validation: 'read it\u0000' })).toContain(NUL);

    const planAndFinish = await mcp('plan-and-finish');
    expect(await refusedByTool(server, planAndFinish, 'plan_tasks', { tasks: ['Reproduce', 'Fix\u0000'] })).toContain(`step 2 contains a ${NUL}`);
    await planAndFinish.ok('plan_tasks', { tasks: ['Reproduce', 'Fix'] });
    expect(await refusedByTool(server, planAndFinish, 'update_task', { task_id: 1, status: 'blocked', note: 'no repro\u0000' })).toContain(NUL);
    expect(await refusedByTool(server, planAndFinish, 'add_task', { text: 'More\u0000' })).toContain(NUL);
  });
});

describe('other control characters', () => {
  it('are refused in labels and free text alike, naming the character, over GraphQL and MCP', async () => {
    const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CREATE_TASK, { input: { ...base, title: 'Clear', goal: 'wipe \u001B[2J', itemsText: 'A' } });
    expect(message).toContain('goal holds the control character U+001B at position 6');
    const kb = await mcp('knowledge-base');
    expect(await refusedByTool(server, kb, 'remember', { title: 'Bell\u0007', body: 'b', domain: base.domain })).toContain('control character U+0007');
    const key = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CREATE_TASK, { input: { ...base, title: 'Keyed', itemsText: 'A', idempotencyKey: 'key\u0000' } });
    expect(key).toContain(`idempotencyKey contains a ${NUL}`);
    // Tabs and line breaks are text.
    const { task } = await createTask(server, ['Tabbed'], { goal: 'Line one\n\tLine two\r\nLine three' });
    expect((await readTask(server, task.id)).goal).toBe('Line one\n\tLine two\r\nLine three');
  });
});

describe('bidi controls', () => {
  it('are refused in every kind of label with a message naming the character, over GraphQL and MCP', async () => {
    const { task, items } = await createTask(server, ['Refund the order'], { domain: base.domain });
    const cases: [string, Record<string, unknown>, string][] = [
      [CREATE_TASK, { input: { ...base, title: 'Pay \u202Eemosewa', itemsText: 'A' } }, 'U+202E RIGHT-TO-LEFT OVERRIDE'],
      [ADD_ITEMS, { input: { taskId: task.id, items: ['\u2066Hidden\u2069'] } }, 'U+2066 LEFT-TO-RIGHT ISOLATE'],
      [UPDATE_ITEM, { input: { id: items[0].id, text: 'Refund\u200F' } }, 'U+200F RIGHT-TO-LEFT MARK'],
      [CREATE_NOTE, { input: { title: '\u061CNote', body: 'b', domain: base.domain } }, 'U+061C ARABIC LETTER MARK'],
    ];
    for (const [query, variables, named] of cases) {
      const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', query, variables);
      expect(message).toContain(named);
      expect(message).toContain('Send the label without it');
    }
    const kb = await mcp('knowledge-base');
    expect(await refusedByTool(server, kb, 'task_add', { uid: task.id, items: 'Pay \u202Aus' })).toContain('U+202A LEFT-TO-RIGHT EMBEDDING');
    const wholeList = await mcp('whole-list');
    expect(await refusedByTool(server, wholeList, 'todo_write', { todos: [{ content: 'Ship \u202Dit', status: 'pending' }] })).toContain('U+202D LEFT-TO-RIGHT OVERRIDE');
  });

  it('stay allowed in free text, where a quote may need them', async () => {
    const { task } = await createTask(server, ['Quote'], { goal: 'Customer wrote \u202Bשלום\u202C' });
    expect((await readTask(server, task.id)).goal).toBe('Customer wrote \u202Bשלום\u202C');
  });
});

describe('labels compared NFKC-folded', () => {
  it('refuse a fullwidth or ligature look-alike of a live label as DUPLICATE_TEXT, and store labels as sent', async () => {
    const { task, items } = await createTask(server, ['Deploy', 'fix the build'], { domain: base.domain });
    await refusedAndNothingRecorded(server, 'DUPLICATE_TEXT', ADD_ITEMS, { input: { taskId: task.id, items: ['Ｄｅｐｌｏｙ'] } });
    await refusedAndNothingRecorded(server, 'DUPLICATE_TEXT', UPDATE_ITEM, { input: { id: items[0].id, text: 'ﬁx the build' } });
    await refusedAndNothingRecorded(server, 'DUPLICATE_TEXT', CREATE_TASK, { input: { ...base, title: 'Twice', items: ['Step ①', 'Step 1'] } });
    const kb = await mcp('knowledge-base');
    expect(await refusedByTool(server, kb, 'task_add', { uid: task.id, items: 'Ｆｉｘ ｔｈｅ ｂｕｉｌｄ\nfix the build' })).toContain('already a live item');

    const added = await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['Ｒｏｌｌ ｂａｃｋ'] } });
    expect(added.addItems.items[0].text).toBe('Ｒｏｌｌ ｂａｃｋ');
    expect((await readTask(server, task.id)).items.nodes.map((item: { text: string }) => item.text)).toContain('Ｒｏｌｌ ｂａｃｋ');
  });

  it('refuse look-alike steps in a whole-list plan with the to-do tool message', async () => {
    const session = await startSession(server);
    const message = await refusedAndNothingRecorded(server, 'DUPLICATE_TEXT', WRITE_TODOS, { todos: todos(['Ship', 'PENDING'], ['Ｓｈｉｐ', 'PENDING']) }, { session });
    expect(message).toBe('invalid todos: duplicate content "Ｓｈｉｐ"');
  });

  it('refuse a label of only combining marks as EMPTY_TEXT', async () => {
    const { task } = await createTask(server, ['Base'], { domain: base.domain });
    for (const label of ['\u0301', ' \u0308\u0327 ']) {
      const message = await refusedAndNothingRecorded(server, 'EMPTY_TEXT', ADD_ITEMS, { input: { taskId: task.id, items: [label] } });
      expect(message).toContain('only combining marks');
    }
    const kb = await mcp('knowledge-base');
    expect(await refusedByTool(server, kb, 'task', { ...base, title: '\u0301', items: 'A' })).toContain('only combining marks');
  });
});
