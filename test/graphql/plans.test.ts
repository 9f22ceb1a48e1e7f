/**
 * A session's plan over HTTP, with x-session-id: writeTodos (the whole-list
 * tool, with its exact messages), the step operations, clearPlan, the rules
 * that apply to each, the history rows each accepted update records, and
 * the edges: a cleared plan stays cleared, a resent step records nothing,
 * and the task mutations steer a plan only within its session's rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import {
  ADD_STEPS, CLEAR_PLAN, FINISH_SESSION, PLAN_HISTORY, PLAN_WITH_DELETED, SET_PLAN, SET_PLAN_RULES, START_TURN, UPDATE_STEP, WRITE_TODOS,
} from '../fixtures/documents.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { planHistory, readSession, startSession, stepsOf, todos, writeTodos, type PlanPayload } from '../fixtures/sessions.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const NO_SESSION = 'todo_write requires an owning agent session';
const UPDATE_ITEM_TEXT_STATE = 'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id text state } }';
const planVersionAndHistory = async (planId: string) => (await server.ok(PLAN_HISTORY, { id: planId })).task as { version: number; history: { totalCount: number } };

async function call(session: string, query: string, variables: Record<string, unknown> = {}): Promise<PlanPayload> {
  const data = await server.ok(query, variables, { session });
  return Object.values(data)[0] as PlanPayload;
}

describe('a plan mutation needs an owning session', () => {
  const mutations: [string, string, Record<string, unknown>][] = [
    ['writeTodos', WRITE_TODOS, { todos: todos(['Read the code', 'PENDING']) }],
    ['setPlan', SET_PLAN, { steps: ['Read the code'] }],
    ['addSteps', ADD_STEPS, { steps: ['Read the code'] }],
    ['updateStep', UPDATE_STEP, { input: { step: 1, state: 'IN_PROGRESS' } }],
    ['clearPlan', CLEAR_PLAN, {}],
  ];

  it.each(mutations)('%s without x-session-id is refused with NO_SESSION and the to-do tool message', async (_name, query, variables) => {
    const error = await server.refused(query, variables);
    expect(error).toEqual({ code: 'NO_SESSION', message: NO_SESSION });
  });

  it.each(mutations)('%s naming no started session is refused the same way, and makes no session', async (_name, query, variables) => {
    const error = await server.refused(query, variables, { session: 'never-started' });
    expect(error).toEqual({ code: 'NO_SESSION', message: NO_SESSION });
    expect(await readSession(server, 'never-started')).toBeNull();
  });
});

describe('writeTodos', () => {
  it('records the list and answers with the counts of the whole list', async () => {
    const session = await startSession(server);
    const result = await writeTodos(server, session, [
      ['Read the failing test', 'DONE'], ['Fix the parser', 'IN_PROGRESS'], ['Run the suite', 'PENDING'], ['Update the changelog', 'DONE'],
    ]);
    expect(result.message).toBe('Updated todo list: 1 pending, 1 in progress, 2 completed.');
    expect(stepsOf(result)).toEqual(['Read the failing test:DONE', 'Fix the parser:IN_PROGRESS', 'Run the suite:PENDING', 'Update the changelog:DONE']);
    expect(result.plan).toMatchObject({ domain: null, title: 'Plan of Read the failing test', session: { id: session }, version: 1 });
    expect(result.rendered).toBe(
      '[x] 1. Read the failing test\n[~] 2. Fix the parser\n[ ] 3. Run the suite\n[x] 4. Update the changelog',
    );
  });

  it('counts only DONE as completed', async () => {
    const session = await startSession(server);
    const result = await writeTodos(server, session, [['a', 'DROPPED'], ['b', 'BLOCKED'], ['c', 'FAILED'], ['d', 'DONE']]);
    expect(result.message).toBe('Updated todo list: 0 pending, 0 in progress, 1 completed.');
    expect(result.rendered).toBe('[-] 1. a\n[!] 2. b\n[f] 3. c\n[x] 4. d');
  });

  it('keeps the id of the same trimmed text, deletes what is left out, and gives new text a new id', async () => {
    const session = await startSession(server);
    const first = await writeTodos(server, session, [['Read the code', 'IN_PROGRESS'], ['Write the fix', 'PENDING'], ['Ask for review', 'PENDING']]);
    const [read, write, ask] = first.plan!.items.nodes;
    const second = await writeTodos(server, session, [['  Write the fix ', 'IN_PROGRESS'], ['Read the code', 'DONE'], ['Run the tests', 'PENDING']]);
    const steps = second.plan!.items.nodes;
    expect(steps.map((step) => step.text)).toEqual(['Write the fix', 'Read the code', 'Run the tests']);
    expect(steps[0]!.id).toBe(write!.id);
    expect(steps[1]!.id).toBe(read!.id);
    expect([read!.id, write!.id, ask!.id]).not.toContain(steps[2]!.id);
    expect(steps.map((step) => step.number)).toEqual([1, 2, 3]);
    // A step new in a later write joined a plan already recorded: it is marked added.
    expect(steps.map((step) => step.added)).toEqual([false, false, true]);
    expect(second.plan!.version).toBe(2);

    const all = (await server.ok(PLAN_WITH_DELETED, { id: second.plan!.id })).task.items.nodes;
    const left = all.find((step: { id: string }) => step.id === ask!.id);
    expect(left).toMatchObject({ text: 'Ask for review', deleted: true, number: null });
  });

  it('refuses empty text with the exact message, and records nothing', async () => {
    const session = await startSession(server);
    await writeTodos(server, session, [['Read the code', 'PENDING']]);
    const message = await refusedAndNothingRecorded(server, 'EMPTY_TEXT', WRITE_TODOS, { todos: todos(['Read the code', 'DONE'], ['   ', 'PENDING']) }, { session });
    expect(message).toBe('invalid todo: `content` must be a non-empty string');
  });

  it('refuses the same text twice (after trimming) with the exact message, and records nothing', async () => {
    const session = await startSession(server);
    await writeTodos(server, session, [['Read the code', 'PENDING']]);
    const message = await refusedAndNothingRecorded(server, 'DUPLICATE_TEXT', WRITE_TODOS, {
      todos: todos(['Deploy', 'PENDING'], [' Deploy  ', 'DONE']),
    }, { session });
    expect(message).toBe('invalid todos: duplicate content "Deploy"');
  });

  it('refuses two in progress under the one-active rule with the exact message; allows them without it', async () => {
    const strict = await startSession(server, { rules: { oneActive: true } });
    const message = await refusedAndNothingRecorded(server, 'TOO_MANY_IN_PROGRESS', WRITE_TODOS, {
      todos: todos(['a', 'IN_PROGRESS'], ['b', 'IN_PROGRESS'], ['c', 'IN_PROGRESS']),
    }, { session: strict });
    expect(message).toBe('invalid todos: at most one task may be in_progress (got 3)');
    expect((await readSession(server, strict)).plan).toBeNull();

    const relaxed = await startSession(server);
    const result = await writeTodos(server, relaxed, [['a', 'IN_PROGRESS'], ['b', 'IN_PROGRESS']]);
    expect(result.message).toBe('Updated todo list: 0 pending, 2 in progress, 0 completed.');
  });

  it('refuses a state outside the enum in the schema, before anything is recorded', async () => {
    const session = await startSession(server);
    await writeTodos(server, session, [['Read the code', 'PENDING']]);
    for (const status of ['Done', 'completed', 'in_progress']) {
      const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', WRITE_TODOS, { todos: todos(['Read the code', status]) }, { session });
      expect(message).toContain(`"${status}"`);
      expect(message).toContain('ItemState');
    }
  });

  it('records an empty list, which is a plan (not none), unless minItems > 0', async () => {
    const session = await startSession(server);
    await writeTodos(server, session, [['Read the code', 'DONE']]);
    const result = await writeTodos(server, session, []);
    expect(result.message).toBe('Updated todo list: 0 pending, 0 in progress, 0 completed.');
    expect(result.rendered).toBe('(no steps)');
    expect(result.plan!.items.nodes).toEqual([]);
    expect((await readSession(server, session)).plan.id).toBe(result.plan!.id);

    const needy = await startSession(server, { rules: { minItems: 2 } });
    const message = await refusedAndNothingRecorded(server, 'PLAN_SIZE', WRITE_TODOS, { todos: [] }, { session: needy });
    expect(message).toContain('0 steps');
    expect(message).toContain('2 to 200');
  });

  it('applies maxItems and maxTextLength', async () => {
    const session = await startSession(server, { rules: { maxItems: 2, maxTextLength: 12 } });
    const size = await refusedAndNothingRecorded(server, 'PLAN_SIZE', WRITE_TODOS, { todos: todos(['a', 'PENDING'], ['b', 'PENDING'], ['c', 'PENDING']) }, { session });
    expect(size).toContain('3 steps');
    const long = await refusedAndNothingRecorded(server, 'TEXT_TOO_LONG', WRITE_TODOS, { todos: todos(['Exactly 12 c', 'PENDING'], ['Thirteen char', 'PENDING']) }, { session });
    expect(long).toContain('step 2 is 13 characters');
    expect(long).toContain('at most 12');
    expect(stepsOf(await writeTodos(server, session, [['Exactly 12 c', 'PENDING']]))).toEqual(['Exactly 12 c:PENDING']);
  });

  it('takes the 200 entries its rules allow in one call, and refuses 201 by the rules (PLAN_SIZE), before reading them', async () => {
    const session = await startSession(server);
    const many = Array.from({ length: 201 }, (_, i) => ({ content: i === 200 ? ' ' : `Step ${i}`, status: 'PENDING' }));
    expect(await refusedAndNothingRecorded(server, 'PLAN_SIZE', WRITE_TODOS, { todos: many }, { session })).toContain('0 to 200');
    const written = await writeTodos(server, session, many.slice(0, 200).map((todo): [string, string] => [todo.content, 'PENDING']));
    expect(written.message).toBe('Updated todo list: 200 pending, 0 in progress, 0 completed.');
  });

  it('needs no note for DONE: noteRequiredFor checks the step operations only', async () => {
    const session = await startSession(server);
    const result = await writeTodos(server, session, [['Ship it', 'DONE'], ['Drop it', 'DROPPED']]);
    expect(stepsOf(result)).toEqual(['Ship it:DONE', 'Drop it:DROPPED']);
  });

  it('records one history row per update, holding the list sent and what changed', async () => {
    const session = await startSession(server);
    const first = await writeTodos(server, session, [['Read the code', 'IN_PROGRESS'], ['Write the fix', 'PENDING']]);
    const [read, write] = first.plan!.items.nodes;
    const second = await writeTodos(server, session, [['Read the code', 'DONE'], ['Run the tests', 'PENDING']]);
    const added = second.plan!.items.nodes[1]!;
    const { version, rows } = await planHistory(server, first.plan!.id);
    expect(version).toBe(2);
    expect(rows.map((row) => row.action)).toEqual(['PLAN_WRITTEN', 'PLAN_WRITTEN']);
    expect(rows.every((row) => row.sessionId === session)).toBe(true);
    expect(rows[0]!.items).toEqual([
      { id: read!.id, text: 'Read the code', state: 'IN_PROGRESS' },
      { id: write!.id, text: 'Write the fix', state: 'PENDING' },
    ]);
    expect(rows[0]!.changes.map((change) => change.kind)).toEqual(['ADDED', 'ADDED']);
    expect(rows[1]!.items).toEqual([
      { id: read!.id, text: 'Read the code', state: 'DONE' },
      { id: added.id, text: 'Run the tests', state: 'PENDING' },
    ]);
    expect(rows[1]!.changes).toEqual([
      { itemId: read!.id, kind: 'STATE', text: 'Read the code', from: 'IN_PROGRESS', to: 'DONE' },
      { itemId: added.id, kind: 'ADDED', text: 'Run the tests', from: null, to: 'PENDING' },
      { itemId: write!.id, kind: 'REMOVED', text: 'Write the fix', from: 'PENDING', to: null },
    ]);
  });

  it('is never returned by search', async () => {
    const session = await startSession(server);
    await writeTodos(server, session, [['Calibrate the flux capacitor', 'PENDING']]);
    const data = await server.ok(`query { search(query: "flux capacitor") { totalCount } }`);
    expect(data.search.totalCount).toBe(0);
  });
});

describe('setPlan', () => {
  it('replaces the plan with fresh PENDING steps, discarding states and notes', async () => {
    const session = await startSession(server);
    const first = await writeTodos(server, session, [['Read the code', 'DONE'], ['Write the fix', 'IN_PROGRESS']]);
    const result = await call(session, SET_PLAN, { steps: [' Read the code ', 'Run the tests'] });
    expect(result.message).toBe('New plan of 2 steps, all PENDING. Updated todo list: 2 pending, 0 in progress, 0 completed.');
    expect(stepsOf(result)).toEqual(['Read the code:PENDING', 'Run the tests:PENDING']);
    // Fresh steps: new ids, not marked added, on the same plan task.
    expect(result.plan!.id).toBe(first.plan!.id);
    const oldIds = first.plan!.items.nodes.map((step) => step.id);
    expect(result.plan!.items.nodes.every((step) => !oldIds.includes(step.id) && !step.added)).toBe(true);
    expect(result.rendered).toBe('[ ] 1. Read the code\n[ ] 2. Run the tests');
    const { rows } = await planHistory(server, first.plan!.id);
    expect(rows.map((row) => row.action)).toEqual(['PLAN_WRITTEN', 'PLAN_WRITTEN']);
  });

  it('writes the first plan too', async () => {
    const session = await startSession(server);
    expect(stepsOf(await call(session, SET_PLAN, { steps: ['One', 'Two'] }))).toEqual(['One:PENDING', 'Two:PENDING']);
  });

  it('checks the text and size rules', async () => {
    const session = await startSession(server, { rules: { minItems: 2, maxItems: 3 } });
    await call(session, SET_PLAN, { steps: ['One', 'Two'] });
    expect(await refusedAndNothingRecorded(server, 'PLAN_SIZE', SET_PLAN, { steps: ['One'] }, { session })).toContain('2 to 3');
    await refusedAndNothingRecorded(server, 'PLAN_SIZE', SET_PLAN, { steps: ['a', 'b', 'c', 'd'] }, { session });
    await refusedAndNothingRecorded(server, 'EMPTY_TEXT', SET_PLAN, { steps: ['a', ' '] }, { session });
  });

  it('takes a step that repeats another (a re-run), and [[#1]] as plain text', async () => {
    const session = await startSession(server, { preset: 'STEP_OPS' });
    expect(stepsOf(await call(session, SET_PLAN, { steps: ['Run the tests', 'see [[#1]]', 'Run the tests '] }))).toEqual(['Run the tests:PENDING', 'see [[#1]]:PENDING', 'Run the tests:PENDING']);
  });
});

describe('addSteps', () => {
  it('is refused with NO_PLAN before any plan exists', async () => {
    const session = await startSession(server);
    const message = await refusedAndNothingRecorded(server, 'NO_PLAN', ADD_STEPS, { steps: ['Read the code'] }, { session });
    expect(message).toContain('writeTodos or setPlan');
  });

  it('appends steps, keeping existing ones and their states, and marks them added', async () => {
    const session = await startSession(server);
    const first = await writeTodos(server, session, [['Read the code', 'DONE'], ['Write the fix', 'IN_PROGRESS']]);
    const result = await call(session, ADD_STEPS, { steps: ['Run the tests', 'Update the docs'] });
    expect(result.message).toBe('Added steps 3-4. Updated todo list: 2 pending, 1 in progress, 1 completed.');
    expect(stepsOf(result)).toEqual(['Read the code:DONE', 'Write the fix:IN_PROGRESS', 'Run the tests:PENDING', 'Update the docs:PENDING']);
    expect(result.plan!.items.nodes.slice(0, 2).map((step) => step.id)).toEqual(first.plan!.items.nodes.map((step) => step.id));
    expect(result.plan!.items.nodes.map((step) => step.added)).toEqual([false, false, true, true]);
    expect(result.rendered.split('\n')[2]).toBe('[ ] 3. Run the tests (added)');
    const { rows } = await planHistory(server, first.plan!.id);
    expect(rows.at(-1)!.action).toBe('ITEMS_ADDED');
    expect(rows.at(-1)!.changes.map((change) => `${change.kind}:${change.text}`)).toEqual(['ADDED:Run the tests', 'ADDED:Update the docs']);
  });

  it('inserts after the step named by id', async () => {
    const session = await startSession(server);
    const first = await writeTodos(server, session, [['One', 'DONE'], ['Three', 'PENDING']]);
    const result = await call(session, ADD_STEPS, { steps: ['Two'], after: first.plan!.items.nodes[0]!.id });
    expect(result.message).toMatch(/^Added step 2\. /);
    expect(result.plan!.items.nodes.map((step) => `${step.number}. ${step.text}`)).toEqual(['1. One', '2. Two', '3. Three']);
  });

  it('refuses an after that is not a step of this plan, text already in the plan, and growing past maxItems', async () => {
    const session = await startSession(server, { rules: { maxItems: 3 } });
    await writeTodos(server, session, [['One', 'DONE'], ['Two', 'PENDING']]);
    await refusedAndNothingRecorded(server, 'NOT_FOUND', ADD_STEPS, { steps: ['Three'], after: '999999' }, { session });
    expect(await refusedAndNothingRecorded(server, 'PLAN_SIZE', ADD_STEPS, { steps: ['Three', 'Four'] }, { session })).toContain('4 steps');
    await call(session, ADD_STEPS, { steps: [' Two'] });
    await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', ADD_STEPS, { steps: [] }, { session });
  });
});

describe('updateStep', () => {
  async function planned(rules?: Record<string, unknown>) {
    const session = await startSession(server, rules ? { rules } : undefined);
    const first = await writeTodos(server, session, [['Read the code', 'PENDING'], ['Run the tests', 'PENDING'], ['Write it up', 'PENDING']]);
    return { session, steps: first.plan!.items.nodes, planId: first.plan!.id };
  }

  it('moves a step by its 1-based number, and by its id, answering with the step and the counts', async () => {
    const { session, steps, planId } = await planned();
    const started = await call(session, UPDATE_STEP, { input: { step: 2, state: 'IN_PROGRESS' } });
    expect(started.message).toBe('Step 2 "Run the tests" is IN_PROGRESS. Updated todo list: 2 pending, 1 in progress, 0 completed.');
    const done = await call(session, UPDATE_STEP, { input: { id: steps[1]!.id, state: 'DONE', note: 'ran npm test, 38 passed' } });
    expect(done.message).toBe('Step 2 "Run the tests" is DONE. Updated todo list: 2 pending, 0 in progress, 1 completed.');
    expect(done.plan!.items.nodes[1]).toMatchObject({ state: 'DONE', note: 'ran npm test, 38 passed' });
    expect(done.rendered).toBe('[ ] 1. Read the code\n[x] 2. Run the tests - ran npm test, 38 passed\n[ ] 3. Write it up');
    const { rows } = await planHistory(server, planId);
    expect(rows.map((row) => row.action)).toEqual(['PLAN_WRITTEN', 'ITEM_STATE', 'ITEM_STATE']);
    expect(rows[2]!.changes).toEqual([{ itemId: steps[1]!.id, kind: 'STATE', text: 'Run the tests', from: 'IN_PROGRESS', to: 'DONE' }]);
  });

  it('refuses a settled state in noteRequiredFor without a note, naming the state', async () => {
    const { session } = await planned({ noteRequiredFor: ['DONE', 'FAILED', 'BLOCKED', 'DROPPED'] });
    for (const state of ['DONE', 'FAILED', 'BLOCKED', 'DROPPED']) {
      const message = await refusedAndNothingRecorded(server, 'NOTE_REQUIRED', UPDATE_STEP, { input: { step: 1, state, note: '   ' } }, { session });
      expect(message).toContain(`marking a step ${state} needs a note`);
    }
    await refusedAndNothingRecorded(server, 'NOTE_REQUIRED', UPDATE_STEP, { input: { step: 1, state: 'DONE' } }, { session });
  });

  it('follows the session rules: with noteRequiredFor [], DONE needs no note', async () => {
    const { session } = await planned({ noteRequiredFor: [] });
    const result = await call(session, UPDATE_STEP, { input: { step: 3, state: 'DONE' } });
    expect(result.plan!.items.nodes[2]).toMatchObject({ state: 'DONE', note: null });
  });

  it('refuses a step outside 1..n, giving the plan length', async () => {
    const { session } = await planned();
    for (const step of [0, 4, -1]) {
      const message = await refusedAndNothingRecorded(server, 'STEP_OUT_OF_RANGE', UPDATE_STEP, { input: { step, state: 'IN_PROGRESS' } }, { session });
      expect(message).toContain('the plan has 3 steps; use 1..3');
    }
  });

  it('refuses neither or both of step and id with BAD_USER_INPUT', async () => {
    const { session, steps } = await planned();
    expect(await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', UPDATE_STEP, { input: { state: 'IN_PROGRESS' } }, { session })).toContain('neither');
    expect(await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', UPDATE_STEP, { input: { step: 1, id: steps[0]!.id, state: 'IN_PROGRESS' } }, { session })).toContain('both');
  });

  it('refuses a second step in progress under the one-active rule', async () => {
    const { session } = await planned({ oneActive: true });
    await call(session, UPDATE_STEP, { input: { step: 1, state: 'IN_PROGRESS' } });
    const message = await refusedAndNothingRecorded(server, 'TOO_MANY_IN_PROGRESS', UPDATE_STEP, { input: { step: 2, state: 'IN_PROGRESS' } }, { session });
    expect(message).toContain('step 1 "Read the code" is already IN_PROGRESS');
    await call(session, UPDATE_STEP, { input: { step: 1, state: 'DONE', note: 'read parser.ts end to end' } });
    expect(stepsOf(await call(session, UPDATE_STEP, { input: { step: 2, state: 'IN_PROGRESS' } }))[1]).toBe('Run the tests:IN_PROGRESS');
  });

  it('is refused with NO_PLAN before any plan, and for a deleted step by id with DELETED_ITEM', async () => {
    const fresh = await startSession(server);
    await refusedAndNothingRecorded(server, 'NO_PLAN', UPDATE_STEP, { input: { step: 1, state: 'IN_PROGRESS' } }, { session: fresh });
    const { session, steps } = await planned();
    await writeTodos(server, session, [['Read the code', 'PENDING']]);
    await refusedAndNothingRecorded(server, 'DELETED_ITEM', UPDATE_STEP, { input: { id: steps[2]!.id, state: 'IN_PROGRESS' } }, { session });
  });

  it('refuses an id that names a knowledge-base item, not a step of the plan', async () => {
    const { session } = await planned();
    const created = await server.ok(`mutation { createTask(input: { title: "Other", goal: "g", items: ["x"], domain: "acme/plans" }) { items { id } } }`);
    await refusedAndNothingRecorded(server, 'NOT_FOUND', UPDATE_STEP, { input: { id: created.createTask.items[0].id, state: 'IN_PROGRESS' } }, { session });
  });

  it('resending the state and note a step has records nothing and keeps the session finished', async () => {
    const session = await startSession(server);
    const planId = (await writeTodos(server, session, [['Only', 'PENDING']])).plan!.id;
    await server.ok(UPDATE_STEP, { input: { step: 1, state: 'DONE', note: 'ran it: ok' } }, { session });
    await server.ok(FINISH_SESSION, {}, { session });
    const before = await planVersionAndHistory(planId);
    const again = await server.ok(UPDATE_STEP, { input: { step: 1, state: 'DONE', note: 'ran it: ok' } }, { session });
    expect(again.updateStep.message).toContain('is DONE');
    await server.ok(UPDATE_STEP, { input: { step: 1, state: 'DONE' } }, { session });
    expect(await planVersionAndHistory(planId)).toEqual(before);
    expect((await readSession(server, session)).finishedAt).not.toBeNull();
  });
});

describe('rules changed mid-plan', () => {
  it('keep the recorded plan as it is and apply from the next update on', async () => {
    const session = await startSession(server);
    const first = await writeTodos(server, session, [['A fairly long step text', 'IN_PROGRESS'], ['b', 'IN_PROGRESS'], ['c', 'PENDING']]);
    const rules = (await server.ok(SET_PLAN_RULES, { rules: { oneActive: true, maxTextLength: 10 } }, { session })).setPlanRules;
    expect(rules.rules).toMatchObject({ oneActive: true, maxTextLength: 10 });
    expect(rules.plan).toEqual({ id: first.plan!.id, version: 1 });
    // A whole list sent now is checked against the new rules...
    expect(await refusedAndNothingRecorded(server, 'TOO_MANY_IN_PROGRESS', WRITE_TODOS, {
      todos: todos(['short', 'IN_PROGRESS'], ['b', 'IN_PROGRESS']),
    }, { session })).toBe('invalid todos: at most one task may be in_progress (got 2)');
    // ...while a step update is judged on what it changes: settling one of the two is fine, starting a third is not.
    const settled = await call(session, UPDATE_STEP, { input: { step: 2, state: 'DONE', note: 'checked by hand' } });
    expect(stepsOf(settled)).toEqual(['A fairly long step text:IN_PROGRESS', 'b:DONE', 'c:PENDING']);
    await refusedAndNothingRecorded(server, 'TOO_MANY_IN_PROGRESS', UPDATE_STEP, { input: { step: 3, state: 'IN_PROGRESS' } }, { session });
    await refusedAndNothingRecorded(server, 'TEXT_TOO_LONG', ADD_STEPS, { steps: ['Eleven char'] }, { session });
  });
});

describe('clearPlan', () => {
  it('leaves no plan, records PLAN_CLEARED, and the next write continues the same history', async () => {
    const session = await startSession(server);
    const first = await writeTodos(server, session, [['One', 'DONE'], ['Two', 'PENDING']]);
    const cleared = await call(session, CLEAR_PLAN);
    expect(cleared).toEqual({ plan: null, rendered: '(no plan)', message: 'Cleared the plan (2 steps). The session has no plan until writeTodos or setPlan writes one.' });
    const after = await readSession(server, session);
    expect(after.plan).toBeNull();
    expect(after.standingPlan).toBeNull();
    expect(after.statusLine).toBe('planning');
    await refusedAndNothingRecorded(server, 'NO_PLAN', ADD_STEPS, { steps: ['Three'] }, { session });
    await refusedAndNothingRecorded(server, 'NO_PLAN', UPDATE_STEP, { input: { step: 1, state: 'IN_PROGRESS' } }, { session });

    const again = await writeTodos(server, session, [['One', 'PENDING']]);
    expect(again.plan!.id).toBe(first.plan!.id);
    // The cleared step is not revived: "One" is a new item, and not marked added (no plan was recorded).
    expect(again.plan!.items.nodes[0]!.id).not.toBe(first.plan!.items.nodes[0]!.id);
    expect(again.plan!.items.nodes[0]!.added).toBe(false);
    const { rows } = await planHistory(server, first.plan!.id);
    expect(rows.map((row) => row.action)).toEqual(['PLAN_WRITTEN', 'PLAN_CLEARED', 'PLAN_WRITTEN']);
    expect(rows[1]!.items).toEqual([]);
    expect(rows[1]!.changes.map((change) => change.kind)).toEqual(['REMOVED', 'REMOVED']);
  });

  it('changes nothing when there is no plan', async () => {
    const session = await startSession(server);
    expect(await call(session, CLEAR_PLAN)).toEqual({ plan: null, rendered: '(no plan)', message: 'There is no plan to clear; nothing changed.' });
    expect((await readSession(server, session)).plan).toBeNull();
  });

  it('leaves nothing to finish against: finishSession is NO_PLAN', async () => {
    const session = await startSession(server);
    await writeTodos(server, session, [['A', 'PENDING']]);
    await server.ok(CLEAR_PLAN, {}, { session });
    expect((await server.refused(FINISH_SESSION, {}, { session })).code).toBe('NO_PLAN');
  });

  it('stays cleared after a comment on the plan task', async () => {
    const session = await startSession(server);
    const planId = (await writeTodos(server, session, [['A', 'PENDING']])).plan!.id;
    await server.ok(CLEAR_PLAN, {}, { session });
    await server.ok('mutation($taskId: ID!) { addComment(input: { taskId: $taskId, body: "why I cleared it" }) { id } }', { taskId: planId }, { session });
    expect((await readSession(server, session)).plan).toBeNull();
    expect((await server.refused(ADD_STEPS, { steps: ['B'] }, { session })).code).toBe('NO_PLAN');
  });
});

describe('steering a plan through the task mutations', () => {
  it('a session header naming no session may not change another session\'s plan', async () => {
    const owner = await startSession(server);
    const stepId = (await writeTodos(server, owner, [['Mine', 'PENDING']])).plan!.items.nodes[0].id;
    // Refused before the plan is looked at: a write's x-session-id must name a started session.
    for (const header of ['not-a-session', `${owner}-${'x'.repeat(80)}`]) {
      expect((await server.refused(UPDATE_ITEM_TEXT_STATE, { input: { id: stepId, text: 'Not yours' } }, { session: header })).code).toBe('NO_SESSION');
    }
    expect((await readSession(server, owner)).plan!.items.nodes.map((step: { text: string }) => step.text)).toEqual(['Mine']);
  });

  it('a dashboard comment on a step does not un-finish the session or show the plan again', async () => {
    const session = await startSession(server);
    const stepId = (await writeTodos(server, session, [['Done already', 'DONE']])).plan!.items.nodes[0].id;
    await server.ok(FINISH_SESSION, {}, { session });
    await server.ok(START_TURN, {}, { session });
    await server.ok(UPDATE_ITEM_TEXT_STATE, { input: { id: stepId, comment: 'Looks good from the dashboard' } });
    const after = await readSession(server, session);
    expect(after.finishedAt).not.toBeNull();
    expect(after.standingPlan).toBeNull();
  });

  it('may shrink a plan over maxItems, and grow one under minItems', async () => {
    const session = await startSession(server);
    const plan = (await writeTodos(server, session, [['A', 'PENDING'], ['B', 'PENDING'], ['C', 'PENDING'], ['D', 'PENDING']])).plan!;
    await server.ok(SET_PLAN_RULES, { rules: { maxItems: 2 } }, { session });
    await server.ok('mutation($id: ID!) { deleteItem(id: $id) { id } }', { id: plan.items.nodes[3].id });
    await server.ok(SET_PLAN_RULES, { rules: { maxItems: 50, minItems: 10 } }, { session });
    await server.ok('mutation($taskId: ID!) { addItems(input: { taskId: $taskId, items: ["E"] }) { items { id } } }', { taskId: plan.id });
    const steps = (await readSession(server, session)).plan.items.nodes.map((step: { text: string }) => step.text);
    expect(steps).toEqual(['A', 'B', 'C', 'E']);
  });
});
