/** [[#id]] references: rendering, refs, and the refusals that keep them honest, through GraphQL over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import {
  ADD_ITEMS, CREATE_TASK, DELETE_ITEM, EDIT_TASK, MOVE_ITEM, UPDATE_ITEM, ADD_COMMENT, ADD_TASK_NOTE, CREATE_NOTE, EDIT_NOTE, EDIT_TASK_NOTE, REF, TASK_COMMENTS, TASK_NOTES,
} from '../fixtures/documents.js';
import { brief, ref } from '../fixtures/knowledge.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const READ_GOAL = `query($id: ID!) { task(id: $id) { goal goalText goalRefs { ${REF} } } }`;

async function setGoal(id: string, goal: string) {
  return (await server.ok(EDIT_TASK, { input: { id, goal } })).editTask;
}
async function readGoal(id: string) {
  return (await server.ok(READ_GOAL, { id })).task;
}
async function addNote(input: Record<string, unknown>) {
  return (await server.ok(ADD_TASK_NOTE, { input })).addTaskNote;
}
async function addComment(input: Record<string, unknown>) {
  return (await server.ok(ADD_COMMENT, { input })).addComment;
}

describe('rendering', () => {
  it('renders goalText, a comment, a whole-task note and every brief field as [#N Label]; the raw fields keep the tokens', async () => {
    const { task, items } = await createTask(server, ['Key charge.succeeded by event id', 'Cover refunds and disputes', 'Remove the lookup']);
    const [a, b, c] = items;
    const goal = `Dedupe like [[#${a.id}]], then [[#${b.id}]].`;
    const edited = await setGoal(task.id, goal);
    expect(edited).toMatchObject({
      goal,
      goalText: 'Dedupe like [#1 Key charge.succeeded by event id], then [#2 Cover refunds and disputes].',
      goalRefs: [ref(a, 1), ref(b, 2)],
    });

    const made = await addComment({ taskId: task.id, body: `Blocked by [[#${c.id}]]` });
    expect(made.bodyText).toBe('Blocked by [#3 Remove the lookup]');

    const whole = await addNote({ taskId: task.id, title: 'Rule', body: `[[#${b.id}]] first` });
    expect(whole.bodyText).toBe('[#2 Cover refunds and disputes] first');

    const note = await addNote({
      taskId: task.id, title: 'Brief', items: [c.id],
      brief: brief({
        goal: `goal [[#${a.id}]]`, context: `context [[#${b.id}]]`, steps: `steps [[#${c.id}]]`,
        pitfalls: `pitfalls [[#${a.id}]]`, doneWhen: `done [[#${b.id}]]`, extraInfo: `extra [[#${c.id}]]`,
      }),
    });
    expect(note.brief).toMatchObject({
      goal: `goal [[#${a.id}]]`,
      goalText: 'goal [#1 Key charge.succeeded by event id]',
      contextText: 'context [#2 Cover refunds and disputes]',
      stepsText: 'steps [#3 Remove the lookup]',
      pitfallsText: 'pitfalls [#1 Key charge.succeeded by event id]',
      doneWhenText: 'done [#2 Cover refunds and disputes]',
      extraInfoText: 'extra [#3 Remove the lookup]',
    });
  });

  it('numbers follow moves and deletes; a deleted item reads [deleted item: Label] and its ref is marked deleted', async () => {
    const { task, items } = await createTask(server, ['Alpha', 'Beta', 'Gamma']);
    const [a, b, c] = items;
    await setGoal(task.id, `[[#${c.id}]] waits for [[#${a.id}]].`);
    const made = await addComment({ taskId: task.id, body: `See [[#${b.id}]] and [[#${c.id}]]` });
    const note = await addNote({ taskId: task.id, title: 'Brief', items: [c.id], brief: brief({ steps: `After [[#${a.id}]]`, dependsOn: [{ item: a.id }] }) });
    expect((await readGoal(task.id)).goalText).toBe('[#3 Gamma] waits for [#1 Alpha].');

    await server.ok(MOVE_ITEM, { input: { id: c.id, after: null } });
    expect((await readGoal(task.id)).goalText).toBe('[#1 Gamma] waits for [#2 Alpha].');

    await server.ok(DELETE_ITEM, { id: a.id });
    const goal = await readGoal(task.id);
    expect(goal.goalText).toBe('[#1 Gamma] waits for [deleted item: Alpha].');
    expect(goal.goalRefs).toEqual([ref(c, 1), ref(a, null, true)]);

    await server.ok(UPDATE_ITEM, { input: { id: b.id, text: 'Beta renamed' } });
    const comments = (await server.ok(TASK_COMMENTS, { id: task.id })).task.comments;
    expect(comments.nodes[0]).toMatchObject({
      body: `See [[#${b.id}]] and [[#${c.id}]]`,
      bodyText: 'See [#2 Beta renamed] and [#1 Gamma]',
      refs: [{ id: b.id, number: 2, text: 'Beta renamed', deleted: false }, ref(c, 1)],
    });
    expect(comments.nodes[0].id).toBe(made.id);

    const notes = (await server.ok(TASK_NOTES, { id: task.id })).task.notes;
    expect(notes.nodes[0].id).toBe(note.id);
    expect(notes.nodes[0].brief).toMatchObject({ stepsText: 'After [deleted item: Alpha]', dependsOn: [{ item: ref(a, null, true) }] });
    expect(notes.nodes[0].refs).toEqual([ref(a, null, true)]);
  });

  it('lists refs in order of first appearance, each id once, across a note (dependsOn included)', async () => {
    const { task, items } = await createTask(server, ['One', 'Two', 'Three', 'Four']);
    const [one, two, three, four] = items;
    const edited = await setGoal(task.id, `[[#${three.id}]] [[#${one.id}]] [[#${three.id}]] [[#${two.id}]][[#${one.id}]]`);
    expect(edited.goalRefs.map((r: { id: string }) => r.id)).toEqual([three.id, one.id, two.id]);
    expect(edited.goalText).toBe('[#3 Three] [#1 One] [#3 Three] [#2 Two][#1 One]');

    const note = await addNote({
      taskId: task.id, title: 'Brief', items: [four.id],
      brief: brief({ goal: `[[#${two.id}]]`, context: `[[#${one.id}]] and [[#${two.id}]]`, dependsOn: [{ item: three.id }, { item: one.id }] }),
    });
    expect(note.refs.map((r: { id: string }) => r.id)).toEqual([two.id, one.id, three.id]);

    const made = await addComment({ taskId: task.id, body: `[[#${four.id}]], [[#${four.id}]] and [[#${two.id}]]` });
    expect(made.refs).toEqual([ref(four, 4), ref(two, 2)]);
  });

  it('renders tokens at the very start and end of the text, adjacent tokens, and unicode labels', async () => {
    const { task, items } = await createTask(server, ['Überprüfe die Rückerstattung', '東京の決済を確認', 'Ship it 🚀 now']);
    const [de, ja, emoji] = items;
    const edited = await setGoal(task.id, `[[#${de.id}]][[#${ja.id}]]…と[[#${emoji.id}]]`);
    expect(edited.goalText).toBe('[#1 Überprüfe die Rückerstattung][#2 東京の決済を確認]…と[#3 Ship it 🚀 now]');
    expect(edited.goalRefs).toEqual([ref(de, 1), ref(ja, 2), ref(emoji, 3)]);

    const only = await addComment({ taskId: task.id, body: `[[#${emoji.id}]]` });
    expect(only).toMatchObject({ bodyText: '[#3 Ship it 🚀 now]', refs: [ref(emoji, 3)] });

    await server.ok(DELETE_ITEM, { id: ja.id });
    expect((await readGoal(task.id)).goalText).toBe('[#1 Überprüfe die Rückerstattung][deleted item: 東京の決済を確認]…と[#2 Ship it 🚀 now]');
  });

  it('leaves text that only looks like a token as written', async () => {
    const { task, items } = await createTask(server, ['A']);
    const text = `[#${items[0].id}] and [[${items[0].id}]] and [[# ${items[0].id}]] are not tokens`;
    const made = await addComment({ taskId: task.id, body: text });
    expect(made).toMatchObject({ body: text, bodyText: text, refs: [] });
  });

  it('gives each page of notes and of comments the refs of that page only', async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C', 'D']);
    const [a, b, c, d] = items;
    await addComment({ taskId: task.id, body: `first [[#${b.id}]]` });
    await addComment({ taskId: task.id, body: `second [[#${a.id}]] [[#${b.id}]]` });
    await addComment({ taskId: task.id, body: `third [[#${d.id}]]` });
    await addComment({ taskId: task.id, body: 'fourth, no refs' });
    await addNote({ taskId: task.id, title: 'N1', body: `[[#${c.id}]]` });
    await addNote({ taskId: task.id, title: 'N2', items: [a.id], brief: brief({ dependsOn: [{ item: d.id }] }) });
    await addNote({ taskId: task.id, title: 'N3', body: `[[#${a.id}]] [[#${b.id}]]` });

    const c1 = (await server.ok(TASK_COMMENTS, { id: task.id, first: 2 })).task.comments;
    expect(c1.refs).toEqual([ref(b, 2), ref(a, 1)]);
    const c2 = (await server.ok(TASK_COMMENTS, { id: task.id, first: 2, after: c1.pageInfo.endCursor })).task.comments;
    expect(c2.refs).toEqual([ref(d, 4)]);
    expect(c2.pageInfo.hasNextPage).toBe(false);

    const n1 = (await server.ok(TASK_NOTES, { id: task.id, first: 2 })).task.notes;
    expect(n1.refs).toEqual([ref(c, 3), ref(d, 4)]);
    const n2 = (await server.ok(TASK_NOTES, { id: task.id, first: 2, after: n1.pageInfo.endCursor })).task.notes;
    expect(n2.refs).toEqual([ref(a, 1), ref(b, 2)]);

    await server.ok(DELETE_ITEM, { id: b.id });
    const again = (await server.ok(TASK_COMMENTS, { id: task.id, first: 2 })).task.comments;
    expect(again.refs).toEqual([ref(b, null, true), ref(a, 1)]);
  });
});

describe('BARE_ITEM_REFERENCE', () => {
  it('refuses "see i3" in a goal, comment, brief field, whole-task note body and note body; nothing recorded', async () => {
    const { task, items } = await createTask(server, ['A', 'B']);
    const note = await addNote({ taskId: task.id, title: 'Rule', body: 'Fine.' });
    const onItem = await addNote({ taskId: task.id, title: 'Brief', items: [items[0].id], brief: brief() });
    const plain = (await server.ok(CREATE_NOTE, { input: { title: 'Plain', body: 'Fine.', domain: 'acme/refs' } })).createNote;
    const bare = 'see i3 for details';
    const cases: [string, Record<string, unknown>][] = [
      [CREATE_TASK, { input: { title: 'T', goal: bare, items: ['X'], domain: 'acme/refs' } }],
      [EDIT_TASK, { input: { id: task.id, goal: bare } }],
      [ADD_COMMENT, { input: { taskId: task.id, body: bare } }],
      [ADD_COMMENT, { input: { taskId: task.id, item: items[1].id, body: 'Done, like I3.' } }],
      [UPDATE_ITEM, { input: { id: items[1].id, state: 'DONE', comment: bare } }],
      [ADD_TASK_NOTE, { input: { taskId: task.id, title: 'N', body: bare } }],
      [EDIT_TASK_NOTE, { input: { id: note.id, body: bare } }],
      [CREATE_NOTE, { input: { title: 'Plain', body: bare, domain: 'acme/refs' } }],
      [EDIT_NOTE, { input: { id: plain.id, body: bare } }],
    ];
    for (const field of ['goal', 'context', 'steps', 'pitfalls', 'doneWhen', 'extraInfo'] as const) {
      cases.push([ADD_TASK_NOTE, { input: { taskId: task.id, title: 'B', items: [items[1].id], brief: brief({ [field]: `(i3) ${field}` }) } }]);
    }
    cases.push([EDIT_TASK_NOTE, { input: { id: onItem.id, brief: brief({ dependsOn: [{ item: items[1].id, reason: 'after i3' }] }) } }]);
    for (const [query, variables] of cases) {
      const message = await refusedAndNothingRecorded(server, 'BARE_ITEM_REFERENCE', query, variables);
      expect(message).toContain('[[#');
    }
  });

  it('accepts words that only contain i-and-digits: i18n, pi3, wifi6, v2i3x, and a token followed by a word', async () => {
    const { task, items } = await createTask(server, ['A']);
    const text = `i18n strings, pi3 boards, wifi6, v2i3x, and [[#${items[0].id}]]i18n`;
    const edited = await setGoal(task.id, text);
    expect(edited.goal).toBe(text);
    expect((await addComment({ taskId: task.id, body: text })).body).toBe(text);
    expect((await server.ok(CREATE_NOTE, { input: { title: 'I18n', body: 'i18n and l10n', domain: 'acme/refs' } })).createNote.body).toBe('i18n and l10n');
  });
});

describe('UNKNOWN_REFERENCE', () => {
  it("refuses a token for another task's item or for no item at all, in every free text; nothing recorded", async () => {
    const { task, items } = await createTask(server, ['A']);
    const other = await createTask(server, ['Elsewhere']);
    const whole = await addNote({ taskId: task.id, title: 'Rule', body: 'Fine.' });
    const onItem = await addNote({ taskId: task.id, title: 'Brief', items: [items[0].id], brief: brief() });
    for (const id of [other.items[0].id, '99999999']) {
      const token = `after [[#${id}]]`;
      const cases: [string, Record<string, unknown>][] = [
        [CREATE_TASK, { input: { title: 'T', goal: token, items: ['X'], domain: 'acme/refs' } }],
        [EDIT_TASK, { input: { id: task.id, goal: token } }],
        [ADD_COMMENT, { input: { taskId: task.id, body: token } }],
        [UPDATE_ITEM, { input: { id: items[0].id, comment: token } }],
        [ADD_TASK_NOTE, { input: { taskId: task.id, title: 'N', body: token } }],
        [EDIT_TASK_NOTE, { input: { id: whole.id, body: token } }],
        [ADD_TASK_NOTE, { input: { taskId: task.id, title: 'B', items: [items[0].id], brief: brief({ pitfalls: token }) } }],
        [EDIT_TASK_NOTE, { input: { id: onItem.id, brief: brief({ extraInfo: token }) } }],
        [EDIT_TASK_NOTE, { input: { id: onItem.id, brief: brief({ dependsOn: [{ item: id }] }) } }],
      ];
      for (const [query, variables] of cases) {
        const message = await refusedAndNothingRecorded(server, 'UNKNOWN_REFERENCE', query, variables);
        expect(message).toContain(id);
      }
    }
  });

  it('a note (memory) may cite any existing item, but not one that does not exist', async () => {
    const { items } = await createTask(server, ['Cited from a note']);
    const made = (await server.ok(CREATE_NOTE, { input: { title: 'Why', body: `Explains [[#${items[0].id}]].`, domain: 'acme/refs' } })).createNote;
    expect(made.body).toBe(`Explains [[#${items[0].id}]].`);
    await refusedAndNothingRecorded(server, 'UNKNOWN_REFERENCE', CREATE_NOTE, { input: { title: 'Why', body: 'Explains [[#99999999]].', domain: 'acme/refs' } });
  });

  it('a deleted item of the same task stays citable', async () => {
    const { task, items } = await createTask(server, ['Gone', 'Here']);
    await server.ok(DELETE_ITEM, { id: items[0].id });
    expect((await setGoal(task.id, `Was [[#${items[0].id}]].`)).goalText).toBe('Was [deleted item: Gone].');
    expect((await addComment({ taskId: task.id, body: `Was [[#${items[0].id}]].` })).refs).toEqual([ref(items[0], null, true)]);
  });
});

describe('REF_IN_LABEL', () => {
  it('refuses a token in a task title, item text, note title and task note title; nothing recorded', async () => {
    const { task, items } = await createTask(server, ['A']);
    const whole = await addNote({ taskId: task.id, title: 'Rule', body: 'Fine.' });
    const plain = (await server.ok(CREATE_NOTE, { input: { title: 'Plain', body: 'Fine.', domain: 'acme/refs' } })).createNote;
    const token = `Follow up on [[#${items[0].id}]]`;
    const cases: [string, Record<string, unknown>][] = [
      [CREATE_TASK, { input: { title: token, goal: 'G', items: ['X'], domain: 'acme/refs' } }],
      [CREATE_TASK, { input: { title: 'T', goal: 'G', items: ['X', token], domain: 'acme/refs' } }],
      [CREATE_TASK, { input: { title: 'T', goal: 'G', itemsText: `X\n${token}`, domain: 'acme/refs' } }],
      [EDIT_TASK, { input: { id: task.id, title: token } }],
      [ADD_ITEMS, { input: { taskId: task.id, items: [token] } }],
      [UPDATE_ITEM, { input: { id: items[0].id, text: token } }],
      [CREATE_NOTE, { input: { title: token, body: 'Body.', domain: 'acme/refs' } }],
      [EDIT_NOTE, { input: { id: plain.id, title: token } }],
      [ADD_TASK_NOTE, { input: { taskId: task.id, title: token, body: 'Body.' } }],
      [ADD_TASK_NOTE, { input: { taskId: task.id, title: token, items: [items[0].id], brief: brief() } }],
      [EDIT_TASK_NOTE, { input: { id: whole.id, title: token } }],
    ];
    for (const [query, variables] of cases) {
      const message = await refusedAndNothingRecorded(server, 'REF_IN_LABEL', query, variables);
      expect(message).toContain('[[#');
    }
  });
});
