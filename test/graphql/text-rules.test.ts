/**
 * Labels read as a person sees them, over HTTP on a real database: invisible
 * labels are empty, look-alikes are duplicates, text is stored in NFC, lone
 * surrogates and line breaks inside a label are refused. Each refusal
 * records nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS, CREATE_TASK, EDIT_TASK, UPDATE_ITEM } from '../fixtures/documents.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask, readTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const base = { title: 'Text rules', goal: 'Labels read as people see them.', domain: 'acme/text' };
const composed = 'Caf\u00E9 r\u00E9sum\u00E9';
const decomposed = 'Cafe\u0301 re\u0301sume\u0301';

describe('a label of only invisible characters', () => {
  it('is EMPTY_TEXT as a title, an item label or a rename', async () => {
    const { task, items } = await createTask(server, ['Visible']);
    const messages = [
      await refusedAndNothingRecorded(server, 'EMPTY_TEXT', CREATE_TASK, { input: { ...base, title: '\u200B\u2060', items: ['A'] } }),
      await refusedAndNothingRecorded(server, 'EMPTY_TEXT', ADD_ITEMS, { input: { taskId: task.id, items: ['B', '\u200D \uFEFF'] } }),
      await refusedAndNothingRecorded(server, 'EMPTY_TEXT', UPDATE_ITEM, { input: { id: items[0].id, text: '\u2060\u3164' } }),
      await refusedAndNothingRecorded(server, 'EMPTY_TEXT', EDIT_TASK, { input: { id: task.id, title: '\u00AD' } }),
    ];
    for (const message of messages) expect(message).toContain('only invisible characters');
    expect(messages[1]).toContain('item 2 of 2');
  });
});

describe('NFC normalisation', () => {
  it('stores labels and free text in NFC, so they read back as one form', async () => {
    const { task, items } = await createTask(server, [decomposed], { title: decomposed, goal: `Goal: ${decomposed}` });
    expect(items[0].text).toBe(composed);
    const read = await readTask(server, task.id);
    expect([read.title, read.goal, read.items.nodes[0].text]).toEqual([composed, `Goal: ${composed}`, composed]);
  });

  it('refuses the NFD form or a zero-width look-alike of a live label as DUPLICATE_TEXT', async () => {
    const { task, items } = await createTask(server, [composed, 'Ship it']);
    for (const label of [decomposed, 'Ship\u200B it', 'Ship it\u2060']) {
      const message = await refusedAndNothingRecorded(server, 'DUPLICATE_TEXT', ADD_ITEMS, { input: { taskId: task.id, items: [label] } });
      expect(message).toContain('already a live item');
    }
    await refusedAndNothingRecorded(server, 'DUPLICATE_TEXT', UPDATE_ITEM, { input: { id: items[1].id, text: decomposed } });
    await refusedAndNothingRecorded(server, 'DUPLICATE_TEXT', CREATE_TASK, { input: { ...base, items: [composed, decomposed] } });
  });
});

describe('lone surrogates', () => {
  it('are refused with BAD_USER_INPUT in a label or free text, saying what to send', async () => {
    const { task, items } = await createTask(server, ['Launch']);
    const messages = [
      await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CREATE_TASK, { input: { ...base, title: 'Launch \uD83D', items: ['A'] } }),
      await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', ADD_ITEMS, { input: { taskId: task.id, items: ['\uDE80 Liftoff'] } }),
      await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE', comment: 'Done \uD83D' } }),
      await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', EDIT_TASK, { input: { id: task.id, goal: 'Go \uDE80' } }),
    ];
    for (const message of messages) {
      expect(message).toContain('lone UTF-16 surrogate');
      expect(message).toContain('Send valid Unicode');
    }
    // A whole pair is a character like any other, and reads back as sent.
    const rocket = await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: ['Liftoff \uD83D\uDE80'] } });
    expect(rocket.addItems.items[0].text).toBe('Liftoff 🚀');
  });
});

describe('a line break inside an item label', () => {
  it('is refused with BAD_USER_INPUT, pointing to one label per item', async () => {
    const { task, items } = await createTask(server, ['One line']);
    const messages = [
      await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CREATE_TASK, { input: { ...base, items: ['First\nSecond'] } }),
      await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', ADD_ITEMS, { input: { taskId: task.id, items: ['Two\r\nlines'] } }),
      await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', UPDATE_ITEM, { input: { id: items[0].id, text: 'Split\u2028here' } }),
    ];
    for (const message of messages) {
      expect(message).toContain('line break');
      expect(message).toContain('itemsText');
    }
    // itemsText is the way to send several: one label per line.
    const created = await server.ok(CREATE_TASK, { input: { ...base, itemsText: 'First\nSecond' } });
    expect(created.createTask.items.map((item: { text: string }) => item.text)).toEqual(['First', 'Second']);
  });
});
