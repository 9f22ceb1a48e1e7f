/**
 * Every refusal of the task mutations: its code, a message an agent can act on,
 * and nothing recorded (no row, no version bump, no history).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS, CREATE_TASK, DELETE_ITEM, EDIT_TASK, MOVE_ITEM, READ_HISTORY, UPDATE_ITEM } from '../fixtures/documents.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask, labels, readTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const base = { title: 'A task', goal: 'A goal.', domain: 'acme/checkout/billing' };
const refused = (code: string, query: string, variables: Record<string, unknown>) => refusedAndNothingRecorded(server, code, query, variables);
const label = (length: number, fill = 'x') => `Do ${fill.repeat(length - 3)}`;

describe('EMPTY_TEXT', () => {
  it('refuses a blank title, item label or comment, in every mutation that takes one', async () => {
    const { task, items } = await createTask(server, ['A']);
    const messages = [
      await refused('EMPTY_TEXT', CREATE_TASK, { input: { ...base, title: '   ', items: ['A'] } }),
      await refused('EMPTY_TEXT', CREATE_TASK, { input: { ...base, items: ['A', ' \t '] } }),
      await refused('EMPTY_TEXT', ADD_ITEMS, { input: { taskId: task.id, items: ['B', ''] } }),
      await refused('EMPTY_TEXT', UPDATE_ITEM, { input: { id: items[0].id, text: '   ' } }),
      await refused('EMPTY_TEXT', UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE', comment: '  ' } }),
      await refused('EMPTY_TEXT', EDIT_TASK, { input: { id: task.id, title: '  ' } }),
    ];
    for (const message of messages) expect(message).toMatch(/empty/i);
    // The message says which entry was blank.
    expect(messages[1]).toMatch(/item 2 of 2/);
  });
});

describe('TEXT_TOO_LONG', () => {
  it('accepts an 80-character item label and refuses 81, saying the limit and where detail goes', async () => {
    const eighty = label(80);
    const { task, items } = await createTask(server, [eighty]);
    expect(items[0].text).toHaveLength(80);
    const message = await refused('TEXT_TOO_LONG', CREATE_TASK, { input: { ...base, items: [label(81)] } });
    expect(message).toMatch(/81 characters.*limit is 80/);
    expect(message).toMatch(/brief/);
    await refused('TEXT_TOO_LONG', ADD_ITEMS, { input: { taskId: task.id, items: [label(81, 'y')] } });
    await refused('TEXT_TOO_LONG', UPDATE_ITEM, { input: { id: items[0].id, text: label(81, 'z') } });
    expect((await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: [label(80, 'y')] } })).addItems.items[0].text).toHaveLength(80);
  });

  it('counts characters, not UTF-16 units, and measures the label after trimming', async () => {
    const emoji = '🚀'.repeat(80);
    const { items } = await createTask(server, [emoji, `   ${label(80, 'w')}   `]);
    expect(items.map((item) => [...item.text].length)).toEqual([80, 80]);
    await refused('TEXT_TOO_LONG', CREATE_TASK, { input: { ...base, items: ['🚀'.repeat(81)] } });
  });

  it('refuses a title over 200 characters', async () => {
    await refused('TEXT_TOO_LONG', CREATE_TASK, { input: { ...base, title: 't'.repeat(201), items: ['A'] } });
    const { task } = await createTask(server, ['A'], { title: 't'.repeat(200) });
    expect(task.title).toHaveLength(200);
  });
});

describe('DUPLICATE_TEXT', () => {
  it('refuses the same label twice in one call, after trimming', async () => {
    const message = await refused('DUPLICATE_TEXT', CREATE_TASK, { input: { ...base, items: ['Ship it', '  Ship it '] } });
    expect(message).toContain('"Ship it"');
    await refused('DUPLICATE_TEXT', CREATE_TASK, { input: { ...base, itemsText: 'Ship it\nShip it  ' } });
  });

  it('refuses a label that matches a live item; a deleted item\'s label can be reused', async () => {
    const { task, items } = await createTask(server, ['Ship it', 'Test it']);
    const message = await refused('DUPLICATE_TEXT', ADD_ITEMS, { input: { taskId: task.id, items: ['New one', ' Test it'] } });
    expect(message).toMatch(/already a live item/);
    expect(message).toMatch(/Update that item/);
    await server.ok(DELETE_ITEM, { id: items[1].id });
    const added = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['Test it'] } })).addItems;
    expect(labels(added.task)).toEqual(['Ship it', 'Test it']);
    expect(added.items[0].id).not.toBe(items[1].id);
  });

  it('is per task: two tasks may hold the same label', async () => {
    await createTask(server, ['Write the changelog']);
    const { items } = await createTask(server, ['Write the changelog']);
    expect(items[0].text).toBe('Write the changelog');
  });

  it('treats labels that differ only in case as different labels', async () => {
    const { items } = await createTask(server, ['Ship it', 'ship it']);
    expect(items).toHaveLength(2);
  });
});

describe('REF_IN_LABEL', () => {
  it('refuses an [[#id]] token in a title or item label, in every mutation', async () => {
    const { task, items } = await createTask(server, ['A']);
    const token = `[[#${items[0].id}]]`;
    const messages = [
      await refused('REF_IN_LABEL', CREATE_TASK, { input: { ...base, items: [`Follow up on ${token}`] } }),
      await refused('REF_IN_LABEL', CREATE_TASK, { input: { ...base, title: `About ${token}`, items: ['A'] } }),
      await refused('REF_IN_LABEL', ADD_ITEMS, { input: { taskId: task.id, items: [`After ${token}`] } }),
      await refused('REF_IN_LABEL', UPDATE_ITEM, { input: { id: items[0].id, text: `Same as ${token}` } }),
      await refused('REF_IN_LABEL', EDIT_TASK, { input: { id: task.id, title: `Title ${token}` } }),
      // A near miss is an attempt to cite too.
      await refused('REF_IN_LABEL', ADD_ITEMS, { input: { taskId: task.id, items: ['See [[# 12]]'] } }),
    ];
    for (const message of messages) expect(message).toMatch(/free text/);
  });
});

describe('BARE_ITEM_REFERENCE and UNKNOWN_REFERENCE in the goal', () => {
  it('refuses a bare word like i3 in the goal, and tells how to cite', async () => {
    const { task } = await createTask(server, ['A']);
    const message = await refused('BARE_ITEM_REFERENCE', CREATE_TASK, { input: { ...base, goal: 'Finish i3 first.', items: ['A'] } });
    expect(message).toContain('"i3"');
    expect(message).toContain('[[#');
    await refused('BARE_ITEM_REFERENCE', EDIT_TASK, { input: { id: task.id, goal: 'Then (I12), then done.' } });
    // Words that merely contain i+digits are not references.
    const ok = (await server.ok(EDIT_TASK, { input: { id: task.id, goal: 'Support i18n and pi3 boards.' } })).editTask;
    expect(ok.goal).toBe('Support i18n and pi3 boards.');
  });

  it('refuses a token citing an item of another task, or any item when there are none yet', async () => {
    const { task } = await createTask(server, ['A']);
    const { items: others } = await createTask(server, ['Elsewhere']);
    const message = await refused('UNKNOWN_REFERENCE', EDIT_TASK, { input: { id: task.id, goal: `Wait for [[#${others[0].id}]].` } });
    expect(message).toContain(`[[#${others[0].id}]]`);
    expect(message).toMatch(/item ids are \d+/);
    const createMessage = await refused('UNKNOWN_REFERENCE', CREATE_TASK, { input: { ...base, goal: `See [[#${others[0].id}]].`, items: ['A'] } });
    expect(createMessage).toMatch(/no items yet/);
  });

  it('lets the goal cite a deleted item of the same task, rendered as deleted', async () => {
    const { task, items } = await createTask(server, ['Cover refunds and disputes', 'Other']);
    await server.ok(DELETE_ITEM, { id: items[0].id });
    const edited = (await server.ok(EDIT_TASK, { input: { id: task.id, goal: `Was [[#${items[0].id}]], now [[#${items[1].id}]].` } })).editTask;
    expect(edited.goalText).toBe('Was [deleted item: Cover refunds and disputes], now [#1 Other].');
    expect(edited.goalRefs).toEqual([
      { id: items[0].id, number: null, text: 'Cover refunds and disputes', deleted: true },
      { id: items[1].id, number: 1, text: 'Other', deleted: false },
    ]);
  });

  it('refuses a bare reference or unknown token in a comment too', async () => {
    const { items } = await createTask(server, ['A']);
    await refused('BARE_ITEM_REFERENCE', UPDATE_ITEM, { input: { id: items[0].id, comment: 'like i2' } });
    await refused('UNKNOWN_REFERENCE', UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE', comment: 'like [[#99999999]]' } });
  });
});

describe('INVALID_DOMAIN', () => {
  it('refuses malformed domains, suggesting the lower-case form when that is the only slip', async () => {
    const bad = ['Acme/Checkout', 'acme//checkout', '/acme', 'acme/', '', '   ', 'acme checkout', '-acme', 'a/b/c/d/e/f/g/h/i'];
    for (const domain of bad) {
      const message = await refused('INVALID_DOMAIN', CREATE_TASK, { input: { ...base, domain, items: ['A'] } });
      expect(message, domain).toMatch(/1 to 8 segments/);
    }
    const hinted = await refused('INVALID_DOMAIN', CREATE_TASK, { input: { ...base, domain: 'Acme/Checkout', items: ['A'] } });
    expect(hinted).toContain('Did you mean "acme/checkout"?');
    const { task } = await createTask(server, ['A'], { domain: 'a/b/c/d/e/f/g/h' });
    expect(task.domain).toBe('a/b/c/d/e/f/g/h');
    await refused('INVALID_DOMAIN', EDIT_TASK, { input: { id: task.id, domain: 'Ops' } });
  });
});

describe('TOO_LARGE', () => {
  it('refuses 101 items in one call (list or lines), naming the limit', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `Step ${i + 1}`);
    const message = await refused('TOO_LARGE', CREATE_TASK, { input: { ...base, items: many } });
    expect(message).toMatch(/101 items in one call; the limit is 100/);
    await refused('TOO_LARGE', CREATE_TASK, { input: { ...base, itemsText: many.join('\n') } });
    const { task } = await createTask(server, ['A']);
    await refused('TOO_LARGE', ADD_ITEMS, { input: { taskId: task.id, items: many } });
    const hundred = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: many.slice(0, 100) } })).addItems;
    expect(hundred.items).toHaveLength(100);
  });

  it('refuses a 501st live item in a task; deleting one makes room', async () => {
    const batch = (from: number) => Array.from({ length: 100 }, (_, i) => `Item ${from + i}`);
    const { task } = await createTask(server, batch(0));
    for (let from = 100; from < 500; from += 100) await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: batch(from) } });
    const full = await readTask(server, task.id);
    expect(full.progress.total).toBe(500);
    const message = await refused('TOO_LARGE', ADD_ITEMS, { input: { taskId: task.id, items: ['One more'] } });
    expect(message).toMatch(/500 live items.*limit is 500/);
    await server.ok(DELETE_ITEM, { id: full.items.nodes[0].id });
    const added = (await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['One more'] } })).addItems;
    expect(added.task.progress.total).toBe(500);
  });

  it('accepts a 20,000-character goal and refuses 20,001, in createTask, editTask and comments', async () => {
    const { task, items } = await createTask(server, ['A'], { goal: 'g'.repeat(20_000) });
    expect(task.goal).toHaveLength(20_000);
    const message = await refused('TOO_LARGE', CREATE_TASK, { input: { ...base, goal: 'g'.repeat(20_001), items: ['A'] } });
    expect(message).toMatch(/20001 characters; the limit is 20000/);
    await refused('TOO_LARGE', EDIT_TASK, { input: { id: task.id, goal: 'g'.repeat(20_001) } });
    await refused('TOO_LARGE', UPDATE_ITEM, { input: { id: items[0].id, comment: 'c'.repeat(20_001) } });
  });
});

describe('NOT_FOUND', () => {
  it('refuses every mutation naming an unknown task or item, saying where ids come from', async () => {
    const { task, items } = await createTask(server, ['A']);
    const cases: [string, Record<string, unknown>][] = [
      [EDIT_TASK, { input: { id: '987654', title: 'x' } }],
      [EDIT_TASK, { input: { id: 'not-a-number', title: 'x' } }],
      [UPDATE_ITEM, { input: { id: '987654', state: 'DONE' } }],
      [DELETE_ITEM, { id: '987654' }],
      [ADD_ITEMS, { input: { taskId: '987654', items: ['x'] } }],
      [ADD_ITEMS, { input: { taskId: task.id, items: ['x'], after: '987654' } }],
      [MOVE_ITEM, { input: { id: '987654' } }],
      [MOVE_ITEM, { input: { id: items[0].id, after: '987654' } }],
      // An item id is not a task id.
      [ADD_ITEMS, { input: { taskId: 'x1', items: ['x'] } }],
    ];
    for (const [query, variables] of cases) {
      const message = await refused('NOT_FOUND', query, variables);
      expect(message).toMatch(/987654|not-a-number|x1/);
      expect(message).toMatch(/createTask|read the task|Read the task/);
    }
  });
});

describe('a refused call changes nothing that was there', () => {
  it('leaves the task, its items, version and history exactly as they were', async () => {
    const { task, items } = await createTask(server, ['A', 'B']);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'IN_PROGRESS' } });
    const before = await readTask(server, task.id);
    const historyBefore = (await server.ok(READ_HISTORY, { id: task.id })).task.history;
    // Valid labels first, then a bad one: no partial list.
    await refused('TEXT_TOO_LONG', ADD_ITEMS, { input: { taskId: task.id, items: ['C', 'D', label(81)] } });
    await refused('DUPLICATE_TEXT', UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE', text: 'B' } });
    await refused('INVALID_DOMAIN', EDIT_TASK, { input: { id: task.id, title: 'New title', domain: 'BAD DOMAIN' } });
    expect(await readTask(server, task.id)).toEqual(before);
    expect((await server.ok(READ_HISTORY, { id: task.id })).task.history).toEqual(historyBefore);
  });
});
