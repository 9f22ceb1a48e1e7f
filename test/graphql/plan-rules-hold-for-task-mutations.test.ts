import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { FINISH_SESSION, START_TURN } from '../fixtures/documents.js';
import { readSession, startSession, writeTodos } from '../fixtures/sessions.js';

/**
 * The dashboard steers a session's plan with the knowledge-base task
 * mutations (updateItem, addItems, deleteItem, moveItem). The plan's rules
 * hold whichever mutation changes it, and the change counts as a plan update.
 */
let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const UPDATE_ITEM_STATE_NOTE = 'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id state note } }';
const ADD_ITEMS_IDS_VERSION = 'mutation($input: AddItemsInput!) { addItems(input: $input) { items { id } task { version } } }';
const DELETE_ITEM_VERSION = 'mutation($id: ID!) { deleteItem(id: $id) { version } }';

async function planWith(rules: Record<string, unknown>, entries: [string, string][]) {
  const session = await startSession(server, { rules });
  const payload = await writeTodos(server, session, entries);
  return { session, plan: payload.plan!, ids: payload.plan!.items.nodes.map((step) => step.id) };
}

describe('a plan changed through the task mutations', () => {
  it('still needs a note for the states the rules name', async () => {
    const { plan, ids } = await planWith({ noteRequiredFor: ['DONE'] }, [['Run the tests', 'IN_PROGRESS'], ['Ship it', 'PENDING']]);
    const refused = await server.refused(UPDATE_ITEM_STATE_NOTE, { input: { id: ids[0], state: 'DONE' } });
    expect(refused.code).toBe('NOTE_REQUIRED');
    const accepted = await server.ok(UPDATE_ITEM_STATE_NOTE, { input: { id: ids[0], state: 'DONE', comment: 'ran npm test: 40 passed' } });
    expect(accepted.updateItem).toEqual({ id: ids[0], state: 'DONE', note: 'ran npm test: 40 passed' });
    const versions = await server.ok('query($id: ID!) { task(id: $id) { version } }', { id: plan.id });
    expect(versions.task.version).toBe(plan.version + 1);
  });

  it('keeps one step in progress under the one-active rule', async () => {
    const { ids } = await planWith({ oneActive: true }, [['First', 'IN_PROGRESS'], ['Second', 'PENDING']]);
    expect((await server.refused(UPDATE_ITEM_STATE_NOTE, { input: { id: ids[1], state: 'IN_PROGRESS' } })).code).toBe('TOO_MANY_IN_PROGRESS');
  });

  it('keeps the plan within maxItems and minItems', async () => {
    const { plan, ids } = await planWith({ minItems: 2, maxItems: 3 }, [['One', 'PENDING'], ['Two', 'PENDING']]);
    expect((await server.refused(ADD_ITEMS_IDS_VERSION, { input: { taskId: plan.id, items: ['Three', 'Four'] } })).code).toBe('PLAN_SIZE');
    expect((await server.refused(DELETE_ITEM_VERSION, { id: ids[0] })).code).toBe('PLAN_SIZE');
    await server.ok(ADD_ITEMS_IDS_VERSION, { input: { taskId: plan.id, items: ['Three'] } });
    await server.ok(DELETE_ITEM_VERSION, { id: ids[0] });
  });

  it('takes labels up to the session maxTextLength, not the 80 of knowledge-base tasks', async () => {
    const { plan } = await planWith({ maxTextLength: 100 }, [['One', 'PENDING']]);
    await server.ok(ADD_ITEMS_IDS_VERSION, { input: { taskId: plan.id, items: ['x'.repeat(100)] } });
    expect((await server.refused(ADD_ITEMS_IDS_VERSION, { input: { taskId: plan.id, items: ['y'.repeat(101)] } })).code).toBe('TEXT_TOO_LONG');
  });

  it('stands again and must pass finishSession again', async () => {
    const { session, ids } = await planWith({}, [['Only step', 'PENDING']]);
    await server.ok(UPDATE_ITEM_STATE_NOTE, { input: { id: ids[0], state: 'DONE', comment: 'checked by hand' } });
    await server.ok(FINISH_SESSION, {}, { session });
    await server.ok(START_TURN, {}, { session });
    expect((await readSession(server, session)).standingPlan).toBeNull();

    await server.ok(UPDATE_ITEM_STATE_NOTE, { input: { id: ids[0], state: 'PENDING' } });
    const after = await readSession(server, session);
    expect(after.finishedAt).toBeNull();
    expect(after.standingPlan).not.toBeNull();
    expect((await server.refused(FINISH_SESSION, {}, { session })).code).toBe('PLAN_OPEN');
  });
});
