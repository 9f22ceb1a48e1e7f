/** Task notes (briefs on items, notes on the whole task) through GraphQL over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import {
  DELETE_ITEM, EDIT_TASK, UPDATE_ITEM, ADD_TASK_NOTE, DELETE_TASK_NOTE, EDIT_TASK_NOTE, ITEM_KNOWLEDGE, MEMORIES, SEARCH, TASK_NOTES,
} from '../fixtures/documents.js';
import { brief, freshDomain, ref } from '../fixtures/knowledge.js';
import { databaseState, refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function addNote(input: Record<string, unknown>) {
  return (await server.ok(ADD_TASK_NOTE, { input })).addTaskNote;
}

async function notesOf(id: string, item?: string) {
  return (await server.ok(TASK_NOTES, { id, item, first: 200 })).task.notes;
}

async function itemView(id: string) {
  return (await server.ok(ITEM_KNOWLEDGE, { id, first: 200 })).item;
}

describe('addTaskNote', () => {
  it('adds a brief on one item, trimmed, with every field and its rendered text', async () => {
    const { task, items } = await createTask(server, ['Key charge.succeeded by event id', 'Cover refunds and disputes']);
    const [charge, refunds] = items;
    const note = await addNote({
      taskId: task.id,
      title: '  Replay queue  ',
      items: [refunds.id],
      brief: brief({
        goal: ` Refunds follow [[#${charge.id}]]. `,
        extraInfo: ' See the provider docs. ',
        dependsOn: [{ item: charge.id, reason: ' the event-id handler ' }],
      }),
    });
    expect(note).toMatchObject({
      title: 'Replay queue',
      body: null,
      bodyText: null,
      items: [{ id: refunds.id, number: 2, text: refunds.text }],
      brief: {
        goal: `Refunds follow [[#${charge.id}]].`,
        goalText: `Refunds follow [#1 ${charge.text}].`,
        context: 'The queue lives in the webhook worker.',
        contextText: 'The queue lives in the webhook worker.',
        steps: 'Persist each event id before acting on it.',
        stepsText: 'Persist each event id before acting on it.',
        pitfalls: 'A restart mid-replay must not double-book.',
        pitfallsText: 'A restart mid-replay must not double-book.',
        doneWhen: 'The restart test passes.',
        doneWhenText: 'The restart test passes.',
        extraInfo: 'See the provider docs.',
        extraInfoText: 'See the provider docs.',
        dependsOn: [{ item: ref(charge, 1), reason: 'the event-id handler' }],
      },
      refs: [ref(charge, 1)],
    });
    expect(note.id).toMatch(/\S/);
    expect(Date.parse(note.createdAt)).not.toBeNaN();
  });

  it('adds one brief on several items; each item lists it, and Task.notes(item) filters by item', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C']);
    const shared = await addNote({ taskId: task.id, title: 'Shared', items: [items[2].id, items[0].id], brief: brief() });
    expect(shared.items.map((i: { id: string }) => i.id)).toEqual([items[0].id, items[2].id]);
    const onB = await addNote({ taskId: task.id, title: 'Only B', items: [items[1].id], brief: brief() });
    const whole = await addNote({ taskId: task.id, title: 'Rule', body: 'Never call the provider twice.' });

    const all = await notesOf(task.id);
    expect(all.totalCount).toBe(3);
    expect(all.nodes.map((n: { id: string }) => n.id)).toEqual([shared.id, onB.id, whole.id]);
    expect((await notesOf(task.id, items[0].id)).nodes.map((n: { id: string }) => n.id)).toEqual([shared.id]);
    expect((await notesOf(task.id, items[1].id)).nodes.map((n: { id: string }) => n.id)).toEqual([onB.id]);
    const onC = await notesOf(task.id, items[2].id);
    expect(onC.totalCount).toBe(1);
    expect(onC.nodes.map((n: { id: string }) => n.id)).toEqual([shared.id]);

    // An item of another task, or an id of nothing, names no note of this task.
    const other = await createTask(server, ['Elsewhere']);
    await addNote({ taskId: other.task.id, title: 'Theirs', items: [other.items[0].id], brief: brief() });
    expect(await notesOf(task.id, other.items[0].id)).toMatchObject({ totalCount: 0, nodes: [] });
    expect(await notesOf(task.id, 'not-an-id')).toMatchObject({ totalCount: 0, nodes: [] });

    expect((await itemView(items[0].id)).notes).toMatchObject({ totalCount: 1, nodes: [{ id: shared.id, title: 'Shared' }] });
    expect((await itemView(items[1].id)).notes).toMatchObject({ totalCount: 1, nodes: [{ id: onB.id, title: 'Only B' }] });
  });

  it('pages Item.notes with first/after, for every item of a list in one query', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C']);
    const [a, b, c] = items;
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      // Every note is on A; B gets every other one; C none.
      const on = i % 2 === 0 ? [a.id, b.id] : [a.id];
      made.push((await addNote({ taskId: task.id, title: `Brief ${i}`, items: on, brief: brief() })).id);
      await addNote({ taskId: task.id, title: `Rule ${i}`, body: 'On the whole task.' });
    }
    const LIST = `query($id: ID!, $after: String) { task(id: $id) { items { nodes { id notes(first: 2, after: $after) {
      totalCount pageInfo { hasNextPage endCursor } nodes { id items { id } }
    } } } } }`;
    const nodes = (await server.ok(LIST, { id: task.id })).task.items.nodes;
    const pageOf = (id: string) => nodes.find((n: { id: string }) => n.id === id).notes;
    expect(pageOf(a.id)).toMatchObject({ totalCount: 5, pageInfo: { hasNextPage: true } });
    expect(pageOf(a.id).nodes.map((n: { id: string }) => n.id)).toEqual(made.slice(0, 2));
    expect(pageOf(b.id)).toMatchObject({ totalCount: 3, pageInfo: { hasNextPage: true } });
    expect(pageOf(b.id).nodes.map((n: { id: string }) => n.id)).toEqual([made[0], made[2]]);
    expect(pageOf(b.id).nodes[0].items.map((i: { id: string }) => i.id)).toEqual([a.id, b.id]);
    expect(pageOf(c.id)).toMatchObject({ totalCount: 0, nodes: [], pageInfo: { hasNextPage: false, endCursor: null } });

    const walked: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = (await server.ok(ITEM_KNOWLEDGE, { id: a.id, first: 2, after })).item.notes;
      expect(page.totalCount).toBe(5);
      walked.push(...page.nodes.map((n: { id: string }) => n.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(walked).toEqual(made);
  });

  it('adds a whole-task note with a body; it is on no item and renders its tokens', async () => {
    const { task, items } = await createTask(server, ['Ship it']);
    const note = await addNote({ taskId: task.id, title: 'Shared rule', body: ` Wait for [[#${items[0].id}]] first. ` });
    expect(note).toMatchObject({
      title: 'Shared rule',
      body: `Wait for [[#${items[0].id}]] first.`,
      bodyText: 'Wait for [#1 Ship it] first.',
      brief: null,
      items: [],
      refs: [ref(items[0], 1)],
    });
    expect((await itemView(items[0].id)).notes.totalCount).toBe(0);
  });

  it('records NOTE_ADDED in the task history and bumps the version', async () => {
    const { task, items } = await createTask(server, ['A']);
    await addNote({ taskId: task.id, title: 'Brief', items: [items[0].id], brief: brief() });
    const read = await server.ok(`query($id: ID!) { task(id: $id) { version history(first: 10) { nodes { action } } } }`, { id: task.id });
    expect(read.task.version).toBe(task.version + 1);
    expect(read.task.history.nodes.map((e: { action: string }) => e.action)).toEqual(['TASK_CREATED', 'NOTE_ADDED']);
  });

  it('an idempotencyKey retry returns the same note and records nothing', async () => {
    const { task, items } = await createTask(server, ['A']);
    const input = { taskId: task.id, title: 'Once', items: [items[0].id], brief: brief(), idempotencyKey: 'note-once-1' };
    const first = await addNote(input);
    const before = await databaseState(server);
    const again = await addNote(input);
    expect(again).toEqual(first);
    const after = await databaseState(server);
    expect(after.digest).toBe(before.digest);
    expect((await notesOf(task.id)).totalCount).toBe(1);
  });
});

describe('addTaskNote refusals (nothing recorded)', () => {
  const REQUIRED = ['goal', 'context', 'steps', 'pitfalls', 'doneWhen'] as const;

  for (const field of REQUIRED) {
    it(`BRIEF_INCOMPLETE when ${field} is blank, naming it`, async () => {
      const { task, items } = await createTask(server, ['A']);
      const message = await refusedAndNothingRecorded(server, 'BRIEF_INCOMPLETE', ADD_TASK_NOTE, {
        input: { taskId: task.id, title: 'Brief', items: [items[0].id], brief: brief({ [field]: '   ' }) },
      });
      expect(message).toContain(field);
    });
  }

  it('BRIEF_INCOMPLETE names every blank field at once', async () => {
    const { task, items } = await createTask(server, ['A']);
    const message = await refusedAndNothingRecorded(server, 'BRIEF_INCOMPLETE', ADD_TASK_NOTE, {
      input: { taskId: task.id, title: 'Brief', items: [items[0].id], brief: brief({ steps: '', doneWhen: ' ' }) },
    });
    expect(message).toContain('steps');
    expect(message).toContain('doneWhen');
  });

  it('BRIEF_INCOMPLETE for both body and brief, for neither, for items without brief, for a brief without items, for a blank body', async () => {
    const { task, items } = await createTask(server, ['A']);
    const cases: Record<string, unknown>[] = [
      { taskId: task.id, title: 'Both', items: [items[0].id], brief: brief(), body: 'And a body.' },
      { taskId: task.id, title: 'Neither' },
      { taskId: task.id, title: 'Items only', items: [items[0].id] },
      { taskId: task.id, title: 'Items and body', items: [items[0].id], body: 'A body.' },
      { taskId: task.id, title: 'Brief only', brief: brief() },
      { taskId: task.id, title: 'Brief, empty items', items: [], brief: brief() },
      { taskId: task.id, title: 'Blank body', body: '   ' },
    ];
    for (const input of cases) {
      await refusedAndNothingRecorded(server, 'BRIEF_INCOMPLETE', ADD_TASK_NOTE, { input });
    }
  });

  it('EMPTY_TEXT for a blank title', async () => {
    const { task } = await createTask(server, ['A']);
    await refusedAndNothingRecorded(server, 'EMPTY_TEXT', ADD_TASK_NOTE, { input: { taskId: task.id, title: '  ', body: 'Body.' } });
  });

  it('UNKNOWN_REFERENCE when dependsOn names an item of another task, or no item at all', async () => {
    const { task, items } = await createTask(server, ['A']);
    const other = await createTask(server, ['Elsewhere']);
    for (const item of [other.items[0].id, '99999999']) {
      await refusedAndNothingRecorded(server, 'UNKNOWN_REFERENCE', ADD_TASK_NOTE, {
        input: { taskId: task.id, title: 'Brief', items: [items[0].id], brief: brief({ dependsOn: [{ item }] }) },
      });
    }
  });

  it('NOT_FOUND when a brief is on an item of another task; NOT_FOUND for an unknown task', async () => {
    const { task } = await createTask(server, ['A']);
    const other = await createTask(server, ['Elsewhere']);
    await refusedAndNothingRecorded(server, 'NOT_FOUND', ADD_TASK_NOTE, {
      input: { taskId: task.id, title: 'Brief', items: [other.items[0].id], brief: brief() },
    });
    await refusedAndNothingRecorded(server, 'NOT_FOUND', ADD_TASK_NOTE, { input: { taskId: '99999999', title: 'Note', body: 'Body.' } });
  });

  it('DELETED_ITEM when briefing a deleted item, even alongside a live one', async () => {
    const { task, items } = await createTask(server, ['Gone', 'Here']);
    await server.ok(DELETE_ITEM, { id: items[0].id });
    const message = await refusedAndNothingRecorded(server, 'DELETED_ITEM', ADD_TASK_NOTE, {
      input: { taskId: task.id, title: 'Brief', items: [items[1].id, items[0].id], brief: brief() },
    });
    expect(message).toContain(items[0].id);
  });
});

describe('editTaskNote', () => {
  it('changes the title of either kind, the body of a whole-task note, and replaces a brief whole', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C']);
    const note = await addNote({
      taskId: task.id, title: 'Brief', items: [items[2].id],
      brief: brief({ extraInfo: 'Old extra.', dependsOn: [{ item: items[0].id, reason: 'first' }] }),
    });
    const retitled = (await server.ok(EDIT_TASK_NOTE, { input: { id: note.id, title: ' New title ' } })).editTaskNote;
    expect(retitled).toMatchObject({ id: note.id, title: 'New title', brief: { goal: note.brief.goal, extraInfo: 'Old extra.' } });

    const replaced = (await server.ok(EDIT_TASK_NOTE, {
      input: { id: note.id, brief: brief({ goal: `After [[#${items[1].id}]].`, dependsOn: [{ item: items[1].id }] }) },
    })).editTaskNote;
    expect(replaced).toMatchObject({
      title: 'New title',
      items: [{ id: items[2].id }],
      brief: {
        goal: `After [[#${items[1].id}]].`,
        goalText: 'After [#2 B].',
        extraInfo: null,
        extraInfoText: null,
        dependsOn: [{ item: ref(items[1], 2), reason: null }],
      },
      refs: [ref(items[1], 2)],
    });
    expect((await itemView(items[2].id)).dependsOn).toEqual([{ item: ref(items[1], 2), reason: null }]);

    const whole = await addNote({ taskId: task.id, title: 'Rule', body: 'Old body.' });
    const edited = (await server.ok(EDIT_TASK_NOTE, { input: { id: whole.id, body: ` Mind [[#${items[0].id}]]. ` } })).editTaskNote;
    expect(edited).toMatchObject({ title: 'Rule', body: `Mind [[#${items[0].id}]].`, bodyText: 'Mind [#1 A].', brief: null, refs: [ref(items[0], 1)] });
    expect(Date.parse(edited.updatedAt)).toBeGreaterThanOrEqual(Date.parse(whole.updatedAt));
  });

  it('BRIEF_INCOMPLETE for a body on a brief, a brief on a body note, or a blank field of the new brief', async () => {
    const { task, items } = await createTask(server, ['A']);
    const onItem = await addNote({ taskId: task.id, title: 'Brief', items: [items[0].id], brief: brief() });
    const whole = await addNote({ taskId: task.id, title: 'Rule', body: 'Body.' });
    await refusedAndNothingRecorded(server, 'BRIEF_INCOMPLETE', EDIT_TASK_NOTE, { input: { id: onItem.id, body: 'A body.' } });
    await refusedAndNothingRecorded(server, 'BRIEF_INCOMPLETE', EDIT_TASK_NOTE, { input: { id: whole.id, brief: brief() } });
    await refusedAndNothingRecorded(server, 'BRIEF_INCOMPLETE', EDIT_TASK_NOTE, { input: { id: onItem.id, brief: brief({ pitfalls: ' ' }) } });
    await refusedAndNothingRecorded(server, 'BRIEF_INCOMPLETE', EDIT_TASK_NOTE, { input: { id: whole.id, body: '  ' } });
    await refusedAndNothingRecorded(server, 'UNKNOWN_REFERENCE', EDIT_TASK_NOTE, {
      input: { id: onItem.id, brief: brief({ dependsOn: [{ item: '99999999' }] }) },
    });
    await refusedAndNothingRecorded(server, 'NOT_FOUND', EDIT_TASK_NOTE, { input: { id: '99999999', title: 'X' } });
  });
});

describe('deleteTaskNote', () => {
  it('removes the note from the task and its items, and returns the task', async () => {
    const { task, items } = await createTask(server, ['A', 'B']);
    const keep = await addNote({ taskId: task.id, title: 'Keep', body: 'Kept.' });
    const gone = await addNote({ taskId: task.id, title: 'Gone', items: [items[1].id], brief: brief({ dependsOn: [{ item: items[0].id }] }) });
    expect((await itemView(items[1].id)).dependsOn).toHaveLength(1);
    const result = (await server.ok(DELETE_TASK_NOTE, { id: gone.id })).deleteTaskNote;
    expect(result).toMatchObject({ id: task.id, notes: { totalCount: 1, nodes: [{ id: keep.id }] } });
    const item = await itemView(items[1].id);
    expect(item.notes.totalCount).toBe(0);
    expect(item.dependsOn).toEqual([]);
    await refusedAndNothingRecorded(server, 'NOT_FOUND', DELETE_TASK_NOTE, { id: gone.id });
  });
});

describe('Item.dependsOn', () => {
  it('collects the dependencies of every brief on the item, each once; a deleted one stays, marked deleted', async () => {
    const { task, items } = await createTask(server, ['Charge', 'Refunds', 'Replay', 'Docs']);
    const [charge, refunds, replay, docs] = items;
    await addNote({ taskId: task.id, title: 'One', items: [replay.id], brief: brief({ dependsOn: [{ item: charge.id, reason: 'the handler' }, { item: refunds.id }] }) });
    await addNote({ taskId: task.id, title: 'Two', items: [replay.id, docs.id], brief: brief({ dependsOn: [{ item: refunds.id, reason: 'again' }] }) });

    expect((await itemView(replay.id)).dependsOn).toEqual([
      { item: ref(charge, 1), reason: 'the handler' },
      { item: ref(refunds, 2), reason: null },
    ]);
    expect((await itemView(docs.id)).dependsOn).toEqual([{ item: ref(refunds, 2), reason: 'again' }]);
    expect((await itemView(charge.id)).dependsOn).toEqual([]);

    await server.ok(DELETE_ITEM, { id: charge.id });
    expect((await itemView(replay.id)).dependsOn).toEqual([
      { item: ref(charge, null, true), reason: 'the handler' },
      { item: ref(refunds, 1), reason: null },
    ]);
    const [one] = (await notesOf(task.id, replay.id)).nodes;
    expect(one.brief.dependsOn[0]).toEqual({ item: ref(charge, null, true), reason: 'the handler' });
    expect(one.refs).toEqual([ref(charge, null, true), ref(refunds, 1)]);
  });

  it('follows a rename of the item depended on', async () => {
    const { task, items } = await createTask(server, ['Old label', 'Waiter']);
    await addNote({ taskId: task.id, title: 'B', items: [items[1].id], brief: brief({ dependsOn: [{ item: items[0].id }] }) });
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, text: 'New label' } });
    expect((await itemView(items[1].id)).dependsOn).toEqual([{ item: { id: items[0].id, number: 1, text: 'New label', deleted: false }, reason: null }]);
  });
});

describe('task notes stay out of the memory set', () => {
  it('never come back in search or in memories', async () => {
    const domain = freshDomain('notes');
    const { task, items } = await createTask(server, ['Plain item'], { domain, goal: 'Nothing special.' });
    await addNote({ taskId: task.id, title: 'Quokkaword brief', items: [items[0].id], brief: brief({ goal: 'Quokkaword in the goal.', context: 'quokkaword' }) });
    await addNote({ taskId: task.id, title: 'Quokkaword rule', body: 'Quokkaword in the body.' });
    await server.ok(EDIT_TASK, { input: { id: task.id, title: 'Renamed task' } });

    const found = (await server.ok(SEARCH, { query: 'quokkaword' })).search;
    expect(found.totalCount).toBe(0);
    expect(found.nodes).toEqual([]);
    const listed = (await server.ok(MEMORIES, { domain })).memories;
    expect(listed.totalCount).toBe(1);
    expect(listed.nodes.map((m: { id: string; kind: string }) => [m.id, m.kind])).toEqual([[task.id, 'TASK']]);
  });
});
