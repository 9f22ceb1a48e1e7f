import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import {
  ADD_STEPS, CLEAR_PLAN, SET_PLAN, SET_PLAN_RULES, UPDATE_STEP, WRITE_TODOS, DELETE_ITEM, MOVE_ITEM, UPDATE_ITEM,
} from '../fixtures/documents.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { planHistory, readSession, startSession, writeTodos } from '../fixtures/sessions.js';

/**
 * A session's rules hold whichever mutation the agent uses: under STEP_OPS
 * and PLAN_AND_FINISH no call settles a step without its note, and under
 * planOnce the session cannot rewrite its plan; a person at the dashboard
 * (no session) still can, and it shows in the plan's history.
 */
let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function planned(preset: string, entries: [string, string][]) {
  const session = await startSession(server, { preset });
  const payload = await writeTodos(server, session, entries);
  return { session, plan: payload.plan!, ids: payload.plan!.items.nodes.map((step) => step.id) };
}

describe('STEP_OPS: DONE needs its validation, whatever the mutation', () => {
  it('writeTodos, updateItem with the session and updateStep all refuse DONE without a note, recording nothing', async () => {
    const { session, ids } = await planned('STEP_OPS', [['Run the tests', 'IN_PROGRESS'], ['Ship it', 'PENDING']]);
    const whole = await refusedAndNothingRecorded(server, 'NOTE_REQUIRED', WRITE_TODOS, {
      todos: [{ content: 'Run the tests', status: 'DONE' }, { content: 'Ship it', status: 'PENDING' }],
    }, { session });
    expect(whole).toContain('step 1 "Run the tests" DONE');
    await refusedAndNothingRecorded(server, 'NOTE_REQUIRED', WRITE_TODOS, {
      todos: [{ content: 'Run the tests', status: 'IN_PROGRESS' }, { content: 'Ship it', status: 'PENDING' }, { content: 'Tag it', status: 'DONE' }],
    }, { session });
    await refusedAndNothingRecorded(server, 'NOTE_REQUIRED', UPDATE_ITEM, { input: { id: ids[0], state: 'DONE' } }, { session });
    await refusedAndNothingRecorded(server, 'NOTE_REQUIRED', UPDATE_STEP, { input: { step: 1, state: 'DONE', note: '  ' } }, { session });
  });

  it('writeTodos takes the note with the entry and keeps it; an entry that keeps its state needs nothing new', async () => {
    const { session } = await planned('STEP_OPS', [['Run the tests', 'IN_PROGRESS'], ['Ship it', 'PENDING']]);
    const done = (await server.ok(WRITE_TODOS, {
      todos: [{ content: 'Run the tests', status: 'DONE', note: 'ran npm test: 40 passed' }, { content: 'Ship it', status: 'IN_PROGRESS' }],
    }, { session })).writeTodos;
    expect(done.message).toBe('Updated todo list: 0 pending, 1 in progress, 1 completed.');
    expect(done.plan.items.nodes[0]).toMatchObject({ state: 'DONE', note: 'ran npm test: 40 passed' });
    const again = await writeTodos(server, session, [['Run the tests', 'DONE'], ['Ship it', 'IN_PROGRESS']]);
    expect(again.plan!.items.nodes[0]).toMatchObject({ state: 'DONE', note: 'ran npm test: 40 passed' });
  });

  it('a state the rules name beside the preset, IN_PROGRESS included, needs its note in writeTodos too', async () => {
    const session = await startSession(server, { preset: 'STEP_OPS', rules: { noteRequiredFor: ['DONE', 'IN_PROGRESS'] } });
    await writeTodos(server, session, [['Read the code', 'PENDING']]);
    const message = await refusedAndNothingRecorded(server, 'NOTE_REQUIRED', WRITE_TODOS, { todos: [{ content: 'Read the code', status: 'IN_PROGRESS' }] }, { session });
    expect(message).toContain('IN_PROGRESS');
  });
});

describe('PLAN_AND_FINISH: written once, reasons for BLOCKED and DROPPED', () => {
  const written: [string, string][] = [['Read the code', 'PENDING'], ['Fix the bug', 'PENDING'], ['Run the tests', 'PENDING']];

  it('refuses every rewrite by the session with PLAN_LOCKED, pointing to addSteps and updateStep', async () => {
    const { session, ids } = await planned('PLAN_AND_FINISH', written);
    const again = await refusedAndNothingRecorded(server, 'PLAN_LOCKED', WRITE_TODOS, {
      todos: written.map(([content]) => ({ content, status: 'PENDING' })),
    }, { session });
    expect(again).toContain('addSteps');
    expect(again).toContain('updateStep');
    await refusedAndNothingRecorded(server, 'PLAN_LOCKED', SET_PLAN, { steps: ['Something else', 'And more'] }, { session });
    await refusedAndNothingRecorded(server, 'PLAN_LOCKED', CLEAR_PLAN, {}, { session });
    await refusedAndNothingRecorded(server, 'PLAN_LOCKED', UPDATE_ITEM, { input: { id: ids[1], text: 'Fix a different bug' } }, { session });
    await refusedAndNothingRecorded(server, 'PLAN_LOCKED', MOVE_ITEM, { input: { id: ids[2], after: null } }, { session });
    await refusedAndNothingRecorded(server, 'PLAN_LOCKED', DELETE_ITEM, { id: ids[0] }, { session });
    await refusedAndNothingRecorded(server, 'PLAN_LOCKED', SET_PLAN_RULES, { rules: { planOnce: false } }, { session });
    await refusedAndNothingRecorded(server, 'PLAN_LOCKED', SET_PLAN_RULES, { rules: { noteRequiredFor: [] } }, { session });
  });

  it('no mutation blocks or drops a step without its reason; a long reason is kept to 400 characters', async () => {
    const { session, ids } = await planned('PLAN_AND_FINISH', written);
    await refusedAndNothingRecorded(server, 'NOTE_REQUIRED', UPDATE_STEP, { input: { step: 2, state: 'BLOCKED' } }, { session });
    await refusedAndNothingRecorded(server, 'NOTE_REQUIRED', UPDATE_ITEM, { input: { id: ids[1], state: 'DROPPED' } }, { session });
    const reason = `Waiting on the vendor: ${'x'.repeat(500)}`;
    const blocked = (await server.ok(UPDATE_STEP, { input: { step: 2, state: 'BLOCKED', note: reason } }, { session })).updateStep;
    expect(blocked.plan.items.nodes[1].note).toBe(reason.slice(0, 400));
    expect(blocked.rendered).toContain(`[!] 2. Fix the bug - ${reason.slice(0, 400)}`);
    const added = (await server.ok(ADD_STEPS, { steps: ['Write it up'] }, { session })).addSteps;
    expect(added.plan.items.nodes.map((step: { text: string; added: boolean }) => [step.text, step.added]).at(-1)).toEqual(['Write it up', true]);
    const done = (await server.ok(UPDATE_ITEM, { input: { id: ids[0], state: 'DONE' } }, { session })).updateItem;
    expect(done.state).toBe('DONE');
  });

  it('the dashboard (no session) may still rename, move and delete, and every change is in the history', async () => {
    const { session, plan, ids } = await planned('PLAN_AND_FINISH', written);
    await server.ok(UPDATE_ITEM, { input: { id: ids[1], text: 'Fix the login bug' } });
    await server.ok(MOVE_ITEM, { input: { id: ids[2], after: null } });
    await server.ok(DELETE_ITEM, { id: ids[0] });
    const { rows } = await planHistory(server, plan.id);
    expect(rows.map((row) => [row.action, row.sessionId])).toEqual([
      ['PLAN_WRITTEN', session], ['ITEM_RENAMED', null], ['ITEM_MOVED', null], ['ITEM_DELETED', null],
    ]);
    const now = await readSession(server, session);
    expect(now.plan.items.nodes.map((step: { text: string }) => step.text)).toEqual(['Run the tests', 'Fix the login bug']);
  });
});
