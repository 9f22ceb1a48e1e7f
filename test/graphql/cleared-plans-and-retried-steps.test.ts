/** Edge cases of plans found in review: cleared plans, retried steps, steering, and size rules by direction. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_STEPS, CLEAR_PLAN, FINISH_SESSION, PLAN_HISTORY, SET_PLAN_RULES, START_TURN, UPDATE_STEP } from '../fixtures/documents.js';
import { readSession, startSession, writeTodos } from '../fixtures/sessions.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const UPDATE_ITEM_TEXT_STATE = 'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id text state } }';
const history = async (planId: string) => (await server.ok(PLAN_HISTORY, { id: planId })).task as { version: number; history: { totalCount: number } };

describe('a cleared plan', () => {
  it('cannot be finished against: finishSession is NO_PLAN', async () => {
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

describe('updateStep', () => {
  it('resending the state and note a step has records nothing and keeps the session finished', async () => {
    const session = await startSession(server);
    const planId = (await writeTodos(server, session, [['Only', 'PENDING']])).plan!.id;
    await server.ok(UPDATE_STEP, { input: { step: 1, state: 'DONE', note: 'ran it: ok' } }, { session });
    await server.ok(FINISH_SESSION, {}, { session });
    const before = await history(planId);
    const again = await server.ok(UPDATE_STEP, { input: { step: 1, state: 'DONE', note: 'ran it: ok' } }, { session });
    expect(again.updateStep.message).toContain('is DONE');
    await server.ok(UPDATE_STEP, { input: { step: 1, state: 'DONE' } }, { session });
    expect(await history(planId)).toEqual(before);
    expect((await readSession(server, session)).finishedAt).not.toBeNull();
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
